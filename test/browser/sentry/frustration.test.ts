/**
 * An unmodified @sentry/browser with browserTracingIntegration and replayIntegration, pointed at the DSN: a visitor
 * clicks a button five times fast, clicks one that does nothing, then leaves. The visit has the rage click, the dead
 * click and the page's Core Web Vitals — from a pageload transaction (`traceLifecycle: "static"`) and from the spans
 * that 11 streams by default — and the rage clicks on one element of /orders/:id are one issue.
 *
 * With SW_RECORD_FIXTURES=1 it also writes what the SDK posted to test/fixtures/sentry/vitals/, byte for byte.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { inflateSync } from 'node:zlib'
import { build } from 'esbuild'
import type { Browser } from 'playwright-core'
import { json, type TestApp } from '../../helpers/app.ts'
import { closeBrowserTest, eventually, startBrowserTest } from '../../helpers/browser.ts'
import { parseEnvelope } from '../../../src/sentry/envelope.ts'

const FIXTURES = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'sentry', 'vitals')
const RECORD = process.env.SW_RECORD_FIXTURES === '1'

/** A visit's vitals by name: the greatest of each (INP grows as the visit goes on). */
const vitalsOf = (events: Event[]) => new Map(events.filter((e) => e.type === 'WEB_VITAL').sort((a, b) => (a.value ?? 0) - (b.value ?? 0)).map((e) => [e.name, e]))

interface Event { type: string; url?: string; selector?: string; text?: string; count?: number; name?: string; value?: number; element?: string; issueId: string | null }

async function sentryBundle(): Promise<string> {
  const result = await build({
    stdin: { contents: 'export * from "@sentry/browser"', resolveDir: process.cwd(), loader: 'js' },
    bundle: true, format: 'iife', globalName: 'Sentry', minify: true, write: false, logLevel: 'silent',
  })
  return result.outputFiles[0]?.text ?? ''
}

/**
 * The shop's order page. Pay now answers each click (a DOM change), Help answers none, Slow blocks the main thread
 * 300 ms (the visit's INP); a banner shifts the layout once (CLS). The replay's slow-click timeout is cut from 7 s to 1.5 s.
 */
const orderPage = (dsn: string, lifecycle: 'static' | 'stream') => `<!doctype html><html><head><meta charset="utf-8"><title>Order</title></head><body>
<main><p id="note">Your order</p><img id="hero" class="hero wide" src="/hero.svg" width="600" height="300" alt="hero">
<button id="pay" class="btn primary" type="button">Pay now</button>
<button class="btn ghost" type="button">Help</button>
<button id="slow" type="button">Slow</button><span id="count">0</span></main>
<script src="/sentry.js"></script>
<script>
  Sentry.init({
    dsn: ${JSON.stringify(dsn)}, release: 'shop@2.0.0', environment: 'test', tracesSampleRate: 1, traceLifecycle: ${JSON.stringify(lifecycle)},
    integrations: [Sentry.browserTracingIntegration(),
      Sentry.replayIntegration({ maskAllText: false, blockAllMedia: false, minReplayDuration: 0, slowClickTimeout: 1500 })],
    replaysSessionSampleRate: 1, replaysOnErrorSampleRate: 1,
  })
  document.getElementById('pay').addEventListener('click', () => { const c = document.getElementById('count'); c.textContent = String(Number(c.textContent) + 1) })
  document.getElementById('slow').addEventListener('click', () => {
    const end = performance.now() + 300
    while (performance.now() < end) { /* busy */ }
    document.getElementById('count').textContent = 'slow'
  })
  setTimeout(() => { const p = document.createElement('p'); p.style.height = '120px'; p.textContent = 'Free shipping'; document.querySelector('main').prepend(p) }, 150)
</script>
</body></html>`

const HERO = '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300"><rect width="600" height="300" fill="teal"/></svg>'

describe('rage clicks, dead clicks and web vitals from an unmodified Sentry SDK, in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let shop: http.Server
  let relay: http.Server
  let shopUrl: string
  /** Every body the SDK posted, as posted, in order, by the page's lifecycle. */
  const posted: { lifecycle: string; body: Buffer }[] = []
  let lifecycle = ''

  before(async () => {
    let base: string
    ({ t, base, browser } = await startBrowserTest())
    // A relay in front of the service keeps each body as sent: a closing page's last envelopes included.
    relay = http.createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (c: Buffer) => chunks.push(c))
      request.on('end', () => {
        const body = Buffer.concat(chunks)
        if (request.method === 'POST') posted.push({ lifecycle, body })
        void fetch(`${base}${request.url ?? ''}`, { method: request.method ?? 'POST', body: request.method === 'POST' ? body : null })
          .then(async (answer) => {
            response.writeHead(answer.status, { 'access-control-allow-origin': '*', 'content-type': 'application/json' }).end(Buffer.from(await answer.arrayBuffer()))
          }, () => response.writeHead(502).end())
      })
    })
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
    const dsn = `http://${t.project.dsnKey}@127.0.0.1:${(relay.address() as AddressInfo).port}/${t.project.sentryProjectId}`
    const bundle = await sentryBundle()
    shop = http.createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://shop')
      if (url.pathname === '/sentry.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle)
      else if (url.pathname === '/hero.svg') response.writeHead(200, { 'content-type': 'image/svg+xml' }).end(HERO)
      else response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(orderPage(dsn, url.searchParams.get('lifecycle') === 'static' ? 'static' : 'stream'))
    })
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve))
    shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}`
  })
  after(async () => {
    await closeBrowserTest({ t, browser })
    await new Promise((resolve) => shop.close(resolve))
    await new Promise((resolve) => relay.close(resolve))
  })

  const detail = async (id: string) => json<{ events: Event[] }>(await t.get(`/api/v1/sessions/${id}`)).events
  const replayVisits = async () => json<{ sessions: { id: string; sessionKey: string }[] }>(await t.get('/api/v1/sessions?limit=200')).sessions
    .filter((s) => s.sessionKey.startsWith('sentry-r-'))

  /** One visitor on an order page: a click on Slow, five fast clicks on Pay now, one on Help, then the tab is hidden and closed. */
  async function visit(order: number, mode: 'static' | 'stream'): Promise<Event[]> {
    lifecycle = mode
    const known = new Set((await replayVisits()).map((s) => s.id))
    const page = await browser.newPage()
    await page.goto(`${shopUrl}/orders/${order}?lifecycle=${mode}`)
    await page.waitForFunction('typeof Sentry.getReplay === "function" && Sentry.getReplay() !== undefined')
    // The page load ends once idle for a second: its vitals are measured by then.
    await page.waitForTimeout(1500)
    // The slow click first: its event timing entry is long observed when the tab hides and INP is reported.
    await page.click('#slow')
    await page.waitForTimeout(500)
    for (let i = 0; i < 5; i++) await page.click('#pay', { delay: 10 })
    // The click detector reports a burst once the slow-click timeout has passed with no other DOM change.
    await page.waitForTimeout(3000)
    await page.click('button.ghost')
    await page.waitForTimeout(3500)
    await page.evaluate(`Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'))`)
    const events = await eventually(async () => {
      const fresh = (await replayVisits()).find((s) => !known.has(s.id))
      if (!fresh) return null
      const got = await detail(fresh.id)
      const vitals = new Set(got.filter((e) => e.type === 'WEB_VITAL').map((e) => e.name))
      // The SDK sends an INP span each time the page's INP grows: the last is the slow click's.
      const done = ['RAGE_CLICK', 'DEAD_CLICK'].every((type) => got.some((e) => e.type === type))
        && ['LCP', 'FCP', 'TTFB', 'CLS'].every((name) => vitals.has(name)) && got.some((e) => e.name === 'INP' && /button#slow/.test(e.element ?? ''))
      return done ? got : null
    }, `the ${mode} visit's clicks and vitals`, 20_000)
    await page.close()
    return events
  }

  it('stores the rage click, the dead click and the vitals of a pageload transaction and its INP span', async () => {
    const events = await visit(42, 'static')
    const page = `${shopUrl}/orders/42?lifecycle=static`
    const rage = events.find((e) => e.type === 'RAGE_CLICK')
    assert.deepEqual(rage && [rage.selector, rage.text, rage.count, rage.url], ['button#pay', 'Pay now', 5, page])
    const dead = events.find((e) => e.type === 'DEAD_CLICK')
    assert.deepEqual(dead && [dead.selector, dead.text, dead.url], ['button.btn.ghost', 'Help', page])
    const vitals = vitalsOf(events)
    for (const name of ['LCP', 'FCP', 'TTFB', 'CLS', 'INP']) assert.equal(vitals.get(name)?.url, page, name)
    assert.ok((vitals.get('INP')?.value ?? 0) >= 300, `INP ${vitals.get('INP')?.value}: the slow click`)
    assert.match(vitals.get('INP')?.element ?? '', /button#slow/)
    assert.match(vitals.get('CLS')?.element ?? '', /img#hero/)
  })

  it('stores the same from the spans 11 streams by default, and one issue for the rage clicks of both order pages', async () => {
    const events = await visit(43, 'stream')
    const page = `${shopUrl}/orders/43?lifecycle=stream`
    const vitals = vitalsOf(events)
    // LCP, CLS and INP spans name their page load, whose span carried the URL.
    for (const name of ['LCP', 'FCP', 'TTFB', 'CLS', 'INP']) assert.equal(vitals.get(name)?.url, page, name)
    assert.match(vitals.get('INP')?.element ?? '', /button#slow/)
    const rage = events.find((e) => e.type === 'RAGE_CLICK')
    assert.ok(rage?.issueId, 'the rage click is grouped')
    const issue = json<{ issue: { type: string; title: string; culprit: string; sessions: number } }>(await t.get(`/api/v1/issues/${rage.issueId}`)).issue
    assert.deepEqual([issue.type, issue.title, issue.culprit, issue.sessions],
      ['RAGE_CLICK', 'Rage clicks on "Pay now"', `button#pay on ${shopUrl}/orders/:id`, 2])
  })

  it('recorded what it sent (SW_RECORD_FIXTURES=1 writes the fixtures)', () => {
    const kept = new Map<string, Buffer>()
    for (const { lifecycle: mode, body } of posted) {
      const kind = fixtureKind(body)
      if (kind !== null && !kept.has(`${mode}-${kind}`)) kept.set(`${mode}-${kind}`, body)
    }
    for (const name of ['static-transaction', 'static-inp-span', 'stream-pageload-spans', 'stream-lcp-span', 'stream-rage-click', 'stream-dead-click']) {
      assert.ok(kept.has(name), `the SDK sent ${name}: ${[...kept.keys()].join(', ')}`)
    }
    if (!RECORD) return
    fs.mkdirSync(FIXTURES, { recursive: true })
    for (const [name, body] of kept) fs.writeFileSync(path.join(FIXTURES, `${name}.envelope`), body)
  })
})

/** What a body shows of the features under test, to name its fixture; null for the rest. */
function fixtureKind(body: Buffer): string | null {
  const items = parseEnvelope(body).items
  if (items.some((i) => i.type === 'transaction')) return 'transaction'
  const recording = items.find((i) => i.type === 'replay_recording')
  if (recording) {
    const data = recording.payload.subarray(recording.payload.indexOf(0x0a) + 1)
    const text = (data[0] === 0x78 ? inflateSync(data) : data).toString('utf8')
    return text.includes('"ui.multiClick"') ? 'rage-click' : text.includes('"ui.slowClickDetected"') ? 'dead-click' : null
  }
  const spans = items.find((i) => i.type === 'span')?.payload.toString('utf8') ?? ''
  if (spans.includes('"pageload"')) return 'pageload-spans'
  if (spans.includes('"ui.webvital.lcp"')) return 'lcp-span'
  if (spans.includes('"ui.webvital.cls"')) return 'cls-span'
  if (spans.includes('"ui.interaction.click"') && spans.includes('button#slow')) return 'inp-span'
  return null
}
