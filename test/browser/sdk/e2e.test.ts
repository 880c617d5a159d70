import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { json, type TestApp } from '../../helpers/app.ts'
import { closeBrowserTest, eventually, openServedPage, requestsInFlight, servePage, startBrowserTest, watchRequest } from '../../helpers/browser.ts'

interface Event {
  id: string; type: string; createdAt: string; url?: string; method?: string; message: string | null; reqBody: string | null; statusCode: number | null
  stack: string | null; fingerprint: string | null
}
interface Detail { session: Record<string, unknown> & { events: Record<string, number> }; events: Event[] }

// An interval far beyond the test: whatever arrives was sent by captureError's own flush.
const capturePage = (ingestKey: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head><body>
<script src="/sdk.js"></script>
<script>Sessionwatch.init({ ingestKey: ${JSON.stringify(ingestKey)}, record: false, flushIntervalMs: 600000 })</script>
</body></html>`

/** A shop page that names its visitor before init, with release, environment and the privacy options. */
const identifiedPage = (ingestKey: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head><body>
<input id="nick" name="nickname"><input id="city" name="city">
<script src="/sdk.js"></script>
<script>
  // JSON.parse keeps "__proto__" as a key: Fastify refuses a JSON body holding one, so the SDK must drop it.
  Sessionwatch.identify('user-42', Object.assign(JSON.parse('{"__proto__": "x"}'), { plan: 'pro', seats: 3, beta: true, nan: NaN, 'bad key': 1, nested: { a: 1 } }))
  Sessionwatch.init({ ingestKey: ${JSON.stringify(ingestKey)}, record: false, flushIntervalMs: 600000, release: 'shop@1.4.2', environment: 'staging',
    maskInputs: false, maskFields: ['nickname'], networkBodies: ['/api/checkout'] })
  Sessionwatch.setTags({ region: 'eu', ab: 2, 'bad key': 'x' })
</script>
</body></html>`

/** A page that waits for consent, and would record the screen once it has it. */
const consentPage = (ingestKey: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head><body>
<h1>Shop</h1><button id="buy" type="button">Buy</button>
<script src="/sdk.js"></script>
<script>Sessionwatch.init({ ingestKey: ${JSON.stringify(ingestKey)}, consent: false, flushIntervalMs: 300, recordCheckoutMs: 300 })</script>
</body></html>`

/** Batches posted to ingest by a page, and the status the server answered each with. */
function ingestTraffic(page: Page) {
  const batches: { status: number; body: Record<string, unknown> & { events: unknown[] } }[] = []
  page.on('response', (res) => {
    if (!res.url().includes('/ingest/v1/batch')) return
    batches.push({ status: res.status(), body: JSON.parse(res.request().postData() ?? '{}') as Record<string, unknown> & { events: unknown[] } })
  })
  return batches
}

describe('browser SDK, end to end in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let base: string
  before(async () => { ({ t, base, browser } = await startBrowserTest({ TRUST_PROXY: 'true', DEMO: 'true' })) })
  after(() => closeBrowserTest({ t, browser }))

  it('records every event type and the last batch of a closing tab arrives exactly once', async () => {
    const context = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-For': '8.8.8.8' } })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await page.goto(`${base}/demo?utm_source=e2e&utm_campaign=launch&yclid=42`)
    await page.waitForFunction('"Sessionwatch" in window')
    await page.click('#error')
    await page.click('#fail')
    const slowAnswered = await watchRequest(page, '/demo/slow')
    await page.click('#slow')
    await page.fill('#email', 'ann@example.com')
    await page.fill('#password', 'hunter2-secret')
    await page.press('#password', 'Tab')
    await page.click('#login')
    await page.click('#page')
    await page.fill('#note', 'Checkout is broken')
    await page.click('#report')
    await slowAnswered()
    // The last click's events are still queued when the tab closes: they must leave by beacon.
    const failAnswered = await watchRequest(page, '/demo/fail')
    await page.click('#fail')
    await failAnswered()
    await page.close({ runBeforeUnload: true })
    await context.close()

    const detail = await eventually(async () => {
      const id = json<{ sessions: { id: string }[] }>(await t.get('/api/v1/sessions')).sessions[0]?.id
      const d = id === undefined ? null : json<Detail>(await t.get(`/api/v1/sessions/${id}`))
      return d !== null && d.events.filter((e) => e.type === 'HTTP_ERROR' && e.method === 'GET').length >= 2 ? d : null
    }, 'the session with both failing requests')
    // The rule is that nothing arrives twice: a batch sent again would have arrived within this.
    await new Promise((r) => setTimeout(r, 500))
    const final = json<Detail>(await t.get(`/api/v1/sessions/${String(detail.session.id)}`))
    const events = final.events
    const types = events.map((e) => e.type)
    for (const type of ['NAVIGATION', 'CLICK', 'ERROR', 'HTTP_ERROR', 'SLOW_REQUEST', 'INPUT', 'USER_REPORT']) {
      assert.ok(types.includes(type), `${type} recorded: ${types.join(',')}`)
    }
    assert.equal(events.filter((e) => e.type === 'HTTP_ERROR' && e.method === 'GET').length, 2, 'the last batch arrived exactly once')
    assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'no event stored twice')
    const times = events.map((e) => Date.parse(e.createdAt))
    assert.deepEqual(times, [...times].sort((a, b) => a - b), 'in the order they happened')
    assert.deepEqual(final.session.events, {
      total: events.length,
      errors: events.filter((e) => e.type === 'ERROR' || e.type === 'HTTP_ERROR').length,
      slow: events.filter((e) => e.type === 'SLOW_REQUEST').length,
    })
    assert.ok(events.some((e) => e.type === 'ERROR' && e.message?.includes('Demo error: cart is undefined')))
    assert.ok(events.some((e) => e.type === 'SLOW_REQUEST' && e.url?.endsWith('/demo/slow')))
    assert.ok(events.filter((e) => e.type === 'NAVIGATION').length >= 2, 'the landing page and the SPA change')
    assert.ok(events.some((e) => e.type === 'USER_REPORT' && e.message === 'Checkout is broken'))
    const login = events.find((e) => e.type === 'HTTP_ERROR' && e.method === 'POST')
    assert.ok(login)
    assert.equal(login.statusCode, 401)
    assert.match(login.reqBody ?? '', /"password":"\*\*\*"/)
    const everything = JSON.stringify(final)
    assert.ok(!everything.includes('hunter2-secret'), 'the password never leaves the browser')
    assert.ok(events.filter((e) => e.type === 'INPUT').every((e) => !e.message?.includes('ann@example.com')), 'input values are masked')
    assert.ok(events.filter((e) => e.type === 'INPUT').every((e) => !e.message?.includes('hunter2')))
    assert.ok(!events.some((e) => e.url?.includes('/ingest/v1/')), 'the SDK never records its own requests')
    assert.equal(final.session.ip, '8.8.8.8')
    assert.equal(final.session.country, 'US')
    assert.match(String(final.session.userAgent), /Chrome/)
    assert.deepEqual(final.session.utm, { utm_source: 'e2e', utm_campaign: 'launch', yclid: '42' })
    assert.deepEqual(pageErrors.filter((m) => !m.includes('Demo error')), [], 'the SDK never throws into the page')
  })

  it('waits out a 429 with Retry-After, then delivers once; counts what a full queue drops', async () => {
    // The demo page's CSP forbids eval, which the test's page.evaluate strings need; CSP is not what this tests.
    const context = await browser.newContext({ bypassCSP: true })
    const page = await context.newPage()
    let refused = 0
    const arrivals: number[] = []
    await page.route('**/ingest/v1/batch', async (route) => {
      if (refused === 0) {
        refused++
        arrivals.push(Date.now())
        await route.fulfill({ status: 429, headers: { 'retry-after': '1', 'access-control-allow-origin': '*' }, body: '{}' })
        return
      }
      arrivals.push(Date.now())
      await route.continue()
    })
    await page.goto(`${base}/demo`)
    await page.waitForFunction('"Sessionwatch" in window')
    await page.evaluate('Sessionwatch.report("retry me")')
    await page.waitForFunction('Sessionwatch.stats().sent >= 1', undefined, { timeout: 10_000 })
    assert.ok(arrivals.length >= 2)
    assert.ok((arrivals[1] ?? 0) - (arrivals[0] ?? 0) >= 900, 'the retry waited for Retry-After')
    const stats = await page.evaluate<{ sent: number; dropped: Record<string, number> }>('Sessionwatch.stats()')
    assert.deepEqual(stats.dropped, { queue_overflow: 0, rejected: 0, retries_exhausted: 0, consent: 0 })
    // Offline: 1,500 navigations overflow the 1,000-event queue; the overflow is dropped and counted.
    await context.setOffline(true)
    const dropped = await page.evaluate<number>(`(() => {
      for (let i = 0; i < 1500; i++) document.getElementById('page').click()
      return Sessionwatch.stats().dropped.queue_overflow
    })()`)
    assert.ok(dropped > 0, `dropped ${dropped}`)
    await context.close()
    const reports = await t.get('/api/v1/sessions')
    const ids = json<{ sessions: { id: string }[] }>(reports).sessions.map((x) => x.id)
    let found = 0
    for (const id of ids) {
      const d = json<Detail>(await t.get(`/api/v1/sessions/${id}`))
      found += d.events.filter((e) => e.type === 'USER_REPORT' && e.message === 'retry me').length
    }
    assert.equal(found, 1, 'the refused batch arrived exactly once')
  })

  it('serves the SDK cacheably', async () => {
    const res = await fetch(`${base}/sdk.js`)
    assert.equal(res.status, 200)
    assert.match(res.headers.get('cache-control') ?? '', /max-age/)
    const etag = res.headers.get('etag') ?? ''
    const again = await fetch(`${base}/sdk.js`, { headers: { 'if-none-match': etag } })
    assert.equal(again.status, 304)
    const pinned = await fetch(`${base}/sdk/${etag.replaceAll('"', '')}.js`)
    assert.match(pinned.headers.get('cache-control') ?? '', /immutable/)
  })

  it('sends an ERROR with the fingerprint soon, takes any value without throwing; report carries a fingerprint too', async () => {
    const { page: tab, pageErrors } = await openServedPage(browser, base, '/shop', capturePage(t.project.ingestKey))
    await tab.waitForFunction('"Sessionwatch" in window')
    const thrown = await tab.evaluate<string[]>(`(() => {
      const cyclic = { code: 7 }
      cyclic.self = cyclic
      const hostile = new Proxy({}, { get() { throw new Error('trap') } })
      const calls = [
        () => { throw new TypeError('Order 42 has no items') },
        () => Sessionwatch.captureError(undefined),
        () => Sessionwatch.captureError('out of stock', { fingerprint: 'stock' }),
        () => Sessionwatch.captureError(cyclic, { fingerprint: cyclic }),
        () => Sessionwatch.captureError(Object.create(null), hostile),
        () => Sessionwatch.captureError(hostile, 'not options'),
        () => Sessionwatch.captureError(),
      ]
      const thrown = []
      for (const call of calls) {
        try { call() } catch (e) {
          if (e instanceof TypeError && e.message === 'Order 42 has no items') Sessionwatch.captureError(e, { fingerprint: ['checkout', 'pro'] })
          else thrown.push(String(e))
        }
      }
      return thrown
    })()`)
    assert.deepEqual(thrown, [], 'captureError never throws')
    // The landing page's NAVIGATION and seven errors, long before the ten-minute interval.
    await tab.waitForFunction('Sessionwatch.stats().sent >= 8', undefined, { timeout: 10_000 })
    // A rejection is queued as the SDK catches it; the report, sent at once, takes it along.
    await tab.evaluate(`new Promise((resolve) => {
      // Heard after the SDK's own listener, which init added first.
      addEventListener('unhandledrejection', () => { resolve() }, { once: true })
      Promise.reject(new TypeError('Payment 7 failed'))
    })`)
    await tab.evaluate('Sessionwatch.report("Checkout is broken", { fingerprint: "checkout pro" })')
    await tab.waitForFunction('Sessionwatch.stats().sent >= 10', undefined, { timeout: 10_000 })

    const events = await eventually(async () => {
      for (const { id } of json<{ sessions: { id: string }[] }>(await t.get('/api/v1/sessions')).sessions) {
        const list = json<Detail>(await t.get(`/api/v1/sessions/${id}`)).events
        if (list.some((e) => e.type === 'USER_REPORT' && e.fingerprint === 'checkout pro') && list.length >= 10) return list
      }
      return null
    }, 'the events stored')
    const errors = events.filter((e) => e.type === 'ERROR')
    const checkout = errors.find((e) => e.fingerprint === 'checkout pro')
    assert.ok(checkout, 'the array fingerprint, joined with a space')
    assert.equal(checkout.message, 'TypeError: Order 42 has no items')
    assert.match(checkout.stack ?? '', /^TypeError: Order 42 has no items\n\s+at /)
    assert.equal(checkout.url, `${base}/shop`)
    assert.deepEqual(errors.map((e) => [e.message, e.fingerprint]).sort(), [
      ['Error (unprintable value)', null], ['Error (unprintable value)', null], ['TypeError: Order 42 has no items', 'checkout pro'],
      ['Unhandled rejection: TypeError: Payment 7 failed', null], // with the type, which grouping reads
      ['[object Object]', null], ['out of stock', 'stock'], ['undefined', null], ['undefined', null],
    ])
    const report = events.find((e) => e.type === 'USER_REPORT')
    assert.equal(report?.fingerprint, 'checkout pro')
    assert.deepEqual(pageErrors.filter((m) => !m.includes('Payment 7 failed')), [], 'nothing of the SDK reached the page')
  })

  it('an identified page with tags, release and environment sends batches the server accepts; maskFields and networkBodies apply', async () => {
    const page = await browser.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    const batches = ingestTraffic(page)
    await servePage(page, base, '/shop', identifiedPage(t.project.ingestKey))
    await page.goto(`${base}/shop`)
    await page.fill('#nick', 'annie')
    await page.fill('#city', 'Oslo')
    await page.press('#city', 'Tab')
    await page.evaluate(`(async () => {
      await fetch('/api/checkout/pay', { method: 'POST', body: JSON.stringify({ nickname: 'annie', item: 'mug' }) })
      await fetch('/api/other', { method: 'POST', body: 'nickname=annie&item=mug' })
      Sessionwatch.report('first')
    })()`)
    await eventually(() => Promise.resolve(batches.length >= 1 || null), 'the first batch')
    await page.evaluate(`Sessionwatch.identify('user-43'); Sessionwatch.setTags({ region: null, plan: 'pro' }); Sessionwatch.captureError(new Error('second'))`)
    await eventually(() => Promise.resolve(batches.length >= 2 || null), 'the second batch')

    assert.deepEqual(batches.map((b) => b.status), [200, 200], 'the server accepted every batch')
    const [first, second] = batches.map((b) => b.body)
    assert.deepEqual(first && [first.user, first.tags, first.release, first.environment], [
      { id: 'user-42', traits: { plan: 'pro', seats: 3, beta: true } }, { region: 'eu', ab: '2' }, 'shop@1.4.2', 'staging',
    ])
    assert.deepEqual(second && [second.user, second.tags, second.release, second.environment], [
      { id: 'user-43' }, { ab: '2', plan: 'pro' }, 'shop@1.4.2', 'staging',
    ], 'the last identify wins; the tags merged')
    assert.equal(await page.evaluate<number>('Sessionwatch.stats().dropped.rejected'), 0)

    const { sessions } = json<{ sessions: { id: string }[] }>(await t.get('/api/v1/sessions?limit=200'))
    const events = (await Promise.all(sessions.map(async ({ id }) => json<Detail>(await t.get(`/api/v1/sessions/${id}`)).events)))
      .find((list) => list.some((e) => e.type === 'USER_REPORT' && e.message === 'first')) ?? []
    const inputs = events.filter((e) => e.type === 'INPUT').map((e) => e.message)
    assert.deepEqual(inputs.sort(), ['input#city = "Oslo"', 'input#nick'], 'a field named in maskFields keeps its value in the page')
    const failed = events.filter((e) => e.type === 'HTTP_ERROR')
    assert.equal(failed.find((e) => e.url === '/api/checkout/pay')?.reqBody, '{"nickname":"***","item":"mug"}', 'a matching URL: its body, masked')
    assert.equal(failed.find((e) => e.url === '/api/other')?.reqBody, null, 'a URL no pattern matches: no body')
    assert.ok(!JSON.stringify(events).includes('annie'))
    assert.deepEqual(pageErrors, [])
    await page.close()
  })

  it('with consent: false nothing is sent or stored and the recorder never loads until consent(true); consent(false) stops it all', async () => {
    const page = await browser.newPage()
    const batches = ingestTraffic(page)
    const sending = requestsInFlight(page, (url) => url.includes('/ingest/v1/'))
    const recorderLoads: string[] = []
    page.on('request', (req) => { if (req.url().includes('/sdk/recorder.js')) recorderLoads.push(req.url()) })
    await servePage(page, base, '/consent', consentPage(t.project.ingestKey))
    await page.goto(`${base}/consent`)
    await page.click('#buy')
    await page.evaluate(`Sessionwatch.report('held for consent')`)
    // The rule is that nothing leaves without consent: three flush intervals, and the page long loaded.
    await page.waitForTimeout(1000)
    assert.equal(batches.length, 0, 'nothing sent')
    assert.deepEqual(recorderLoads, [], 'the recorder not even loaded')
    assert.equal(await page.evaluate<number>('sessionStorage.length'), 0, 'nothing stored')
    assert.deepEqual(await page.evaluate('[Sessionwatch.stats().queued, Sessionwatch.stats().recording]'), [3, null], 'navigation, click, report held')

    await page.evaluate('Sessionwatch.consent(true)')
    await page.waitForFunction('Sessionwatch.stats().sent >= 3 && Sessionwatch.stats().recording !== null', undefined, { timeout: 10_000 })
    assert.equal(recorderLoads.length, 1)
    const key = await page.evaluate<string | null>('sessionStorage.getItem("sw_session")')
    assert.ok(key)
    await page.mouse.move(50, 50)
    await page.click('#buy')
    await page.waitForFunction('Sessionwatch.stats().recording.chunks >= 1', undefined, { timeout: 10_000 })

    await page.evaluate('Sessionwatch.consent(false)')
    assert.deepEqual(await page.evaluate('[sessionStorage.getItem("sw_session"), Sessionwatch.stats().recording]'), [null, null])
    // A request begun before the withdrawal may still end, and show.
    await eventually(() => Promise.resolve(sending() === 0 || null), 'the requests begun before the withdrawal')
    const before = batches.length
    await page.click('#buy')
    await page.mouse.move(120, 120)
    await page.evaluate(`Sessionwatch.report('after withdrawal')`)
    // The rule is that nothing leaves after the withdrawal: more than three flush intervals.
    await page.waitForTimeout(1000)
    assert.equal(batches.length, before, 'nothing sent after consent(false), neither events nor recording')
    assert.equal(await page.evaluate<number>('sessionStorage.length'), 0)
    assert.ok(batches.every((b) => b.status === 200))
    assert.ok(batches.some((b) => JSON.stringify(b.body.events).includes('held for consent')), 'what was held left after consent(true)')
    await page.close()
  })
})
