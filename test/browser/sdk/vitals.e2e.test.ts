import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { crc32, deflateSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { json, type TestApp } from '../../helpers/app.ts'
import { closeBrowserTest, eventually, servePage, startBrowserTest } from '../../helpers/browser.ts'

interface Event { type: string; url?: string; name?: string; value?: number; rating?: string; element?: string; message: string | null }

/** The hero image arrives this late: it is the largest thing the page paints, so LCP is at least this. */
const IMAGE_DELAY_MS = 1500
/** The Buy button's handler blocks the page this long: the interaction INP reports. */
const HANDLER_MS = 250

/** A PNG of random pixels: Chromium passes over images of too few bytes per pixel (a plain colour) as LCP candidates. */
function noisePng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const out = Buffer.alloc(body.length + 8)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(crc32(body), body.length + 4)
    return out
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8-bit RGB, no interlace
  const rows = Buffer.concat(Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), randomBytes(width * 3)])))
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))])
}
const HERO = noisePng(320, 200)

/** An article whose hero image is late, whose text a late banner pushes down (a layout shift), and a slow button. */
const articlePage = (ingestKey: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Article</title>
<script src="/sdk.js"></script>
<script>Sessionwatch.init({ ingestKey: ${JSON.stringify(ingestKey)}, record: false, rageClicks: false, deadClicks: false })</script>
</head><body style="margin:0;font:16px sans-serif">
<div id="banner-slot"></div>
<p id="intro">A short introduction. <button id="buy" type="button">Buy</button></p>
<img id="hero" src="/hero.png" width="320" height="200" alt="">
<script>
  setTimeout(() => { document.getElementById('banner-slot').innerHTML = '<div style="height:200px;background:#fc0">Sale</div>' }, 300)
  document.getElementById('buy').addEventListener('click', () => { const end = performance.now() + ${HANDLER_MS}; while (performance.now() < end) {} })
</script>
</body></html>`

/** Tells the page it is hidden, or visible again, as switching tabs does: web-vitals and the SDK read visibilityState. */
const setVisibility = (page: Page, state: 'hidden' | 'visible') => page.evaluate(`(() => {
  Object.defineProperty(document, 'visibilityState', { value: ${JSON.stringify(state)}, configurable: true })
  document.dispatchEvent(new Event('visibilitychange'))
})()`)

describe('Core Web Vitals, end to end in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let base: string
  before(async () => { ({ t, base, browser } = await startBrowserTest()) })
  after(() => closeBrowserTest({ t, browser }))

  it('reports a late LCP image, a layout shift, a slow interaction, FCP and TTFB: one of each per page view, when it is hidden', async () => {
    const page = await browser.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    const vitalsLoads: string[] = []
    page.on('request', (r) => { if (r.url().includes('/sdk/vitals.js')) vitalsLoads.push(r.url()) })
    const sent: string[] = []
    page.on('request', (r) => { if (r.url().includes('/ingest/v1/batch')) sent.push(r.postData() ?? '') })
    await servePage(page, base, '/article', articlePage(t.project.ingestKey))
    await page.route(`${base}/hero.png`, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, IMAGE_DELAY_MS))
      await route.fulfill({ status: 200, contentType: 'image/png', body: HERO })
    })
    await page.goto(`${base}/article`, { waitUntil: 'load' })
    await page.click('#buy')
    // web-vitals reports LCP once the page has an input, in an idle callback.
    await page.waitForTimeout(1200)
    await setVisibility(page, 'hidden')
    // web-vitals reports INP and CLS from its own listener for the hidden page: they leave in the beacon all the same.
    const vitalsSent = () => sent.map((body) => JSON.parse(body) as { events: Event[] }).flatMap((b) => b.events).filter((e) => e.type === 'WEB_VITAL')
    const hiddenBatch = await eventually(() => Promise.resolve(vitalsSent().length > 0 ? vitalsSent() : null), 'the hidden page\'s beacon')
    assert.deepEqual(hiddenBatch.map((e) => e.name).sort(), ['CLS', 'FCP', 'INP', 'LCP', 'TTFB'], 'all five in the hidden page\'s beacon')
    await setVisibility(page, 'visible')
    // Back from hidden, a worse interaction and another shift: the page view keeps its first report.
    await page.click('#buy')
    await page.click('#buy')
    await page.close({ runBeforeUnload: true })

    const sessionId = await eventually(async () => json<{ sessions: { id: string }[] }>(await t.get('/api/v1/sessions')).sessions[0]?.id, 'the visit')
    const vitals = await eventually(async () => {
      const events = json<{ events: Event[] }>(await t.get(`/api/v1/sessions/${sessionId}`)).events.filter((e) => e.type === 'WEB_VITAL')
      return events.length >= 5 ? events : null
    }, 'five vitals')
    // The rule is that nothing arrives twice: a second report would have arrived within this.
    await new Promise((resolve) => setTimeout(resolve, 500))
    const final = json<{ events: Event[] }>(await t.get(`/api/v1/sessions/${sessionId}`)).events.filter((e) => e.type === 'WEB_VITAL')
    assert.deepEqual(final.map((e) => e.name).sort(), ['CLS', 'FCP', 'INP', 'LCP', 'TTFB'], 'exactly one of each')
    assert.equal(final.length, vitals.length)
    const of = (name: string): Event => final.find((e) => e.name === name) ?? assert.fail(name)
    const lcp = of('LCP')
    assert.ok((lcp.value ?? 0) >= IMAGE_DELAY_MS, `LCP ${String(lcp.value)}`)
    assert.match(lcp.element ?? '', /#hero$/)
    const inp = of('INP')
    assert.ok((inp.value ?? 0) >= HANDLER_MS, `INP ${String(inp.value)}`)
    assert.match(inp.element ?? '', /#buy$/)
    assert.equal(inp.rating, 'needs-improvement')
    const cls = of('CLS')
    assert.ok((cls.value ?? 0) > 0, `CLS ${String(cls.value)}`)
    assert.ok(cls.element, 'CLS names the element that moved most')
    for (const name of ['FCP', 'TTFB']) {
      assert.ok((of(name).value ?? -1) >= 0)
      assert.equal(of(name).element, undefined, `${name} names no element`)
    }
    assert.ok(final.every((e) => e.url === `${base}/article` && e.rating && e.message?.startsWith(`${e.name ?? ''} `)), JSON.stringify(final))
    assert.equal(vitalsLoads.length, 1, 'the vitals chunk loaded once')
    assert.deepEqual(pageErrors, [])
  })

  it('a page left for another sends all five as it goes: INP and CLS, reported after its pagehide, leave too', async () => {
    const page = await browser.newPage()
    await servePage(page, base, '/leaving', articlePage(t.project.ingestKey))
    await servePage(page, base, '/elsewhere', '<!doctype html><title>Elsewhere</title><p>Elsewhere</p>')
    await page.route(`${base}/hero.png`, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: HERO }))
    await page.goto(`${base}/leaving`, { waitUntil: 'load' })
    // The vitals chunk loads after the page: an interaction before it observes is not measured.
    await page.waitForFunction('window.SessionwatchVitals !== undefined')
    await page.click('#buy')
    // The browser times an interaction once the next frame is painted: one made as the page goes is not measured, and
    // a busy machine paints late.
    await page.waitForTimeout(1000)
    await page.goto(`${base}/elsewhere`)
    const names = await eventually(async () => {
      for (const { id } of json<{ sessions: { id: string }[] }>(await t.get('/api/v1/sessions')).sessions) {
        const events = json<{ events: Event[] }>(await t.get(`/api/v1/sessions/${id}`)).events
        const vitals = events.filter((e) => e.type === 'WEB_VITAL' && e.url === `${base}/leaving`).map((e) => e.name)
        if (vitals.length >= 5) return vitals.sort()
      }
      return null
    }, 'the vitals of the page left')
    assert.deepEqual(names, ['CLS', 'FCP', 'INP', 'LCP', 'TTFB'])
    await page.close()
  })

  it('serves the vitals chunk cacheably, and vitals: false never loads it', async () => {
    const res = await fetch(`${base}/sdk/vitals.js`)
    assert.equal(res.status, 200)
    assert.match(await res.text(), /SessionwatchVitals/)
    const etag = res.headers.get('etag') ?? ''
    assert.equal((await fetch(`${base}/sdk/vitals.js`, { headers: { 'if-none-match': etag } })).status, 304)

    const page = await browser.newPage()
    const loads: string[] = []
    page.on('request', (r) => { if (r.url().includes('/sdk/vitals.js')) loads.push(r.url()) })
    await servePage(page, base, '/plain', articlePage(t.project.ingestKey).replace('deadClicks: false', 'deadClicks: false, vitals: false'))
    await page.route(`${base}/hero.png`, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: HERO }))
    await page.goto(`${base}/plain`, { waitUntil: 'load' })
    await page.waitForTimeout(300)
    assert.deepEqual(loads, [])
    await page.close()
  })
})
