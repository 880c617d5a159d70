/**
 * An unmodified @sentry/browser, given a project's DSN, on a shop served from another origin, next to
 * Sessionwatch's own SDK: its error, failed request, click, feedback, user and replay arrive in one visit, which
 * plays in the dashboard; a second visitor hitting the same bug makes one issue of two visits.
 *
 * With SW_RECORD_FIXTURES=1 it also writes the envelopes the SDK posted to test/fixtures/sentry/ (the fixtures
 * the unit and HTTP tests replay), byte for byte, and the variants derived from them.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import type { Browser, Page } from 'playwright-core'
import { json, type TestApp } from '../../helpers/app.ts'
import { closeBrowserTest, eventually, screenshot, signIn, startBrowserTest } from '../../helpers/browser.ts'
import { parseEnvelope } from '../../../src/sentry/envelope.ts'

const PASSWORD = 'sentry dashboard password'
const FIXTURES = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'sentry')
const RECORD = process.env.SW_RECORD_FIXTURES === '1'

interface Listed { id: string; sessionKey: string }
interface Detail {
  session: { user: { id: string } | null; tags: Record<string, string> | null; release: string | null; environment: string | null; recording: { chunks: number } }
  events: { type: string; message: string | null; url?: string; statusCode: number | null; issueId: string | null; frames: { function: string | null }[] | null }[]
}

/** @sentry/browser as one script, as a site's bundler would ship it. */
async function sentryBundle(): Promise<string> {
  const result = await build({
    stdin: { contents: 'export * from "@sentry/browser"', resolveDir: process.cwd(), loader: 'js' },
    bundle: true, format: 'iife', globalName: 'Sentry', minify: true, write: false, logLevel: 'silent',
  })
  return result.outputFiles[0]?.text ?? ''
}

const shopPage = (dsn: string, service: string, ingestKey: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head><body>
<h1 id="title">Sentry shop</h1>
<button id="buy" type="button">Buy</button>
<script src="/sentry.js"></script>
<script>
  Sentry.init({
    dsn: ${JSON.stringify(dsn)}, release: 'shop@1.2.3', environment: 'test',
    integrations: [Sentry.replayIntegration({ maskAllText: false, blockAllMedia: false, minReplayDuration: 0 })],
    replaysSessionSampleRate: 1, replaysOnErrorSampleRate: 1,
  })
  Sentry.setUser({ id: 'user-42', email: 'ann@example.com' })
  Sentry.setTag('plan', 'pro')
</script>
<script src="${service}/sdk.js"></script>
<script>Sessionwatch.init({ ingestKey: ${JSON.stringify(ingestKey)}, endpoint: ${JSON.stringify(service)}, record: false, flushIntervalMs: 300 })</script>
<script>
  function checkout() { return window.cart.total }
  document.getElementById('buy').addEventListener('click', () => {
    document.getElementById('title').textContent = 'Paying…'
    fetch('/api/pay', { method: 'POST' }).then(() => { setTimeout(checkout, 0) })
  })
</script>
</body></html>`

describe('an unmodified Sentry SDK pointed at the DSN, in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let base: string
  let shop: http.Server
  let shopUrl: string
  const envelopes: Buffer[] = []

  before(async () => {
    ({ t, base, browser } = await startBrowserTest({ ADMIN_PASSWORD: PASSWORD }))
    // Both on `localhost`: the shop and the service are two origins on one machine, as a site and its monitor.
    const service = base.replace('127.0.0.1', 'localhost')
    const dsn = `${service.replace('://', `://${t.project.dsnKey}@`)}/${t.project.sentryProjectId}`
    const bundle = await sentryBundle()
    shop = http.createServer((request, response) => {
      if (request.url === '/sentry.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle)
      else if (request.url === '/api/pay') response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"card declined"}')
      else response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(shopPage(dsn, service, t.project.ingestKey))
    })
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve))
    shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}`
  })
  after(async () => {
    await closeBrowserTest({ t, browser })
    await new Promise((resolve) => shop.close(resolve))
  })

  /** A visit: buy (a click, a failed request, then an uncaught TypeError), and — the first time — feedback. */
  async function visit(feedback: boolean): Promise<Page> {
    const page = await browser.newPage()
    page.on('request', (request) => {
      if (request.url().includes('/envelope/')) {
        const body = request.postDataBuffer()
        if (body) envelopes.push(body)
      }
    })
    const before = envelopes.length
    await page.goto(shopUrl)
    await page.waitForFunction('typeof Sentry.getReplay === "function" && Sentry.getReplay() !== undefined')
    await page.click('#buy')
    await page.locator('#title', { hasText: 'Paying' }).waitFor()
    if (feedback) await page.evaluate('Sentry.captureFeedback({ message: "Checkout broke", name: "Ann", email: "ann@example.com" })')
    // The replay's first segment goes once the replay is 5 s old, or at a flush: one once the error has left, so the
    // segment spans it.
    const sent = (type: string) => envelopes.slice(before).some((body) => parseEnvelope(body).items.some((i) => i.type === type))
    await eventually(() => Promise.resolve((sent('event') && (!feedback || sent('feedback'))) || null), 'the error\'s envelope')
    await page.evaluate('Sentry.getReplay().flush()')
    return page
  }

  const sessions = async (): Promise<Listed[]> => json<{ sessions: Listed[] }>(await t.get('/api/v1/sessions?limit=200')).sessions
  const detail = async (id: string): Promise<Detail> => json<Detail>(await t.get(`/api/v1/sessions/${id}`))

  it('stores the error with its frames, the failed request, the click, the feedback, the user and the replay in one visit', async () => {
    const page = await visit(true)
    const replayVisit = await eventually(async () => {
      const found = (await sessions()).find((s) => s.sessionKey.startsWith('sentry-r-'))
      if (!found) return null
      const d = await detail(found.id)
      const types = new Set(d.events.map((e) => e.type))
      return types.has('ERROR') && types.has('USER_REPORT') && d.session.recording.chunks >= 1 ? { id: found.id, d } : null
    }, 'the replay visit with its error, feedback and recording', 30_000)
    await page.close()
    const { d } = replayVisit
    assert.match(replayVisit.d.events.find((e) => e.type === 'ERROR')?.message ?? '', /TypeError: .*total/)
    const error = d.events.find((e) => e.type === 'ERROR')
    assert.ok(error?.frames?.some((f) => f.function === 'checkout'), `the stack's frames: ${JSON.stringify(error?.frames)}`)
    const failed = d.events.find((e) => e.type === 'HTTP_ERROR')
    assert.equal(failed?.statusCode, 500)
    assert.equal(failed.url, `${shopUrl}/api/pay`)
    assert.ok(d.events.some((e) => e.type === 'CLICK'))
    assert.equal(d.events.find((e) => e.type === 'USER_REPORT')?.message, 'Checkout broke')
    assert.equal(d.session.user?.id, 'user-42')
    assert.equal(d.session.tags?.plan, 'pro')
    assert.deepEqual([d.session.release, d.session.environment], ['shop@1.2.3', 'test'])

    // Sessionwatch's own SDK on the same page kept its own visit, and saw neither SDK's ingest as the page's requests.
    const own = (await sessions()).find((s) => !s.sessionKey.startsWith('sentry-'))
    assert.ok(own, 'our SDK\'s visit')
    const ownEvents = (await detail(own.id)).events
    assert.ok(ownEvents.some((e) => e.type === 'ERROR') && ownEvents.some((e) => e.type === 'CLICK'))
    for (const e of [...ownEvents, ...d.events]) {
      assert.ok(!/\/envelope\/|\/ingest\/v1\//.test(e.url ?? ''), `no SDK request recorded as the page's: ${e.type} ${e.url ?? ''}`)
    }
  })

  it('plays the Sentry replay in the dashboard', async () => {
    const visitId = (await sessions()).find((s) => s.sessionKey.startsWith('sentry-r-'))?.id ?? ''
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    await signIn(page, base, PASSWORD)
    await page.goto(`${base}/app#/p/${t.project.id}/s/${visitId}`)
    const frame = page.frameLocator('#player iframe')
    await frame.locator('#title').waitFor({ state: 'attached', timeout: 15_000 })
    assert.match(await frame.locator('#title').textContent() ?? '', /Sentry shop|Paying/)
    await screenshot(page, 'sentry-replay')
    await page.close()
  })

  it('groups the same bug from a second visitor into the same issue', async () => {
    const page = await visit(false)
    const issueIds = await eventually(async () => {
      const replays = (await sessions()).filter((s) => s.sessionKey.startsWith('sentry-r-'))
      const ids = await Promise.all(replays.map(async (s) => (await detail(s.id)).events.find((e) => e.type === 'ERROR')?.issueId))
      return ids.length === 2 && ids.every((id) => typeof id === 'string') ? ids : null
    }, 'two replay visits with their error', 30_000)
    await page.close()
    assert.equal(issueIds[0], issueIds[1], 'one issue')
    const issue = json<{ issue: { title: string; sessions: number } }>(await t.get(`/api/v1/issues/${issueIds[0] ?? ''}`)).issue
    assert.match(issue.title, /TypeError/)
    assert.ok(issue.sessions >= 2, `${issue.sessions} visits`)
  })

  it('recorded what it sent (SW_RECORD_FIXTURES=1 writes the fixtures)', () => {
    const byKind = new Map<string, Buffer>()
    for (const body of envelopes) {
      const types = parseEnvelope(body).items.map((i) => i.type)
      const kind = types.includes('replay_recording') ? 'replay-segment' : types.includes('feedback') ? 'feedback'
        : types.includes('event') ? 'error' : types.includes('session') ? 'session' : types.includes('client_report') ? 'client-report' : null
      if (kind !== null && !byKind.has(kind)) byKind.set(kind, body)
    }
    assert.ok(byKind.has('error') && byKind.has('replay-segment') && byKind.has('feedback'), `the SDK sent: ${[...byKind.keys()].join(', ')}`)
    if (!RECORD) return
    fs.mkdirSync(FIXTURES, { recursive: true })
    for (const [kind, body] of byKind) fs.writeFileSync(path.join(FIXTURES, `${kind}.envelope`), body)
    const error = byKind.get('error') ?? Buffer.alloc(0)
    const segment = byKind.get('replay-segment') ?? Buffer.alloc(0)
    fs.writeFileSync(path.join(FIXTURES, 'error.gzip.envelope'), gzipSync(error))
    fs.writeFileSync(path.join(FIXTURES, 'error.br.envelope'), brotliCompressSync(error))
    // Cut inside the recording's payload: its header announces more bytes than follow.
    fs.writeFileSync(path.join(FIXTURES, 'truncated.envelope'), segment.subarray(0, segment.length - 40))
    const [header = '', ...rest] = error.toString('utf8').split('\n')
    fs.writeFileSync(path.join(FIXTURES, 'unknown-item.envelope'), [header, '{"type":"future_thing","length":5}', 'hello', ...rest].join('\n'))
  })
})
