import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { json, type TestApp } from '../../helpers/app.ts'
import { closeBrowserTest, eventually, servePage, startBrowserTest } from '../../helpers/browser.ts'

interface Chunk { id: string; startedAt: string; fullSnapshot: boolean }
interface Recording { recording: { chunks: number; bytes: number }; chunks: Chunk[] }

/** A page of the SDK with `options`, whose text changes every 100 ms (`tick-<n>`) and which says `marker`. */
const pageWith = (ingestKey: string, marker: string, options: Record<string, unknown>) => `<!doctype html><html><head><meta charset="utf-8">
<title>${marker}</title></head><body><h1>${marker}</h1><p id="tick">tick-0</p>
<script src="/sdk.js"></script>
<script>
  Sessionwatch.init(${JSON.stringify({ ingestKey, flushIntervalMs: 300, recordChunkMs: 250, ...options })})
  window.n = 0
  setInterval(() => { document.getElementById('tick').textContent = 'tick-' + (++window.n) }, 100)
</script></body></html>`

/** What a page sends of its recording: chunk uploads (their URLs) and batches that carry chunks. */
function recordingTraffic(page: Page) {
  const uploads: string[] = []
  let batches = 0
  page.on('request', (r) => {
    if (r.url().includes('/ingest/v1/recording')) uploads.push(r.url())
    else if (r.url().includes('/ingest/v1/batch') && (r.postData() ?? '').includes('"recording"')) batches++
  })
  return { uploads, batches: () => batches }
}

describe('record: \'onError\', end to end in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let base: string
  before(async () => { ({ t, base, browser } = await startBrowserTest()) })
  after(() => closeBrowserTest({ t, browser }))

  const sessionOf = (path: string) => eventually(async () =>
    json<{ sessions: { id: string; entryUrl: string | null }[] }>(await t.get('/api/v1/sessions')).sessions.find((s) => s.entryUrl?.endsWith(path))?.id, path)
  const recordingOf = async (id: string) => json<Recording>(await t.get(`/api/v1/sessions/${id}/recording`))
  /** The stored chunks' JSON, in recording order. */
  const textOf = async (id: string, chunks: Chunk[]) => {
    let text = ''
    for (const c of chunks) text += (await t.app.inject({ url: `/api/v1/sessions/${id}/recording/chunks/${encodeURIComponent(c.id)}`, headers: { authorization: `Bearer ${t.project.apiKey}` } })).body
    return text
  }
  const open = async (paths: Record<string, string>) => {
    const page = await browser.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    for (const [path, html] of Object.entries(paths)) await servePage(page, base, path, html)
    return { page, pageErrors }
  }

  it('a visit without an error sends no recording byte, though the recorder runs and holds it', async () => {
    const { page, pageErrors } = await open({ '/quiet': pageWith(t.project.ingestKey, 'QUIET', { record: 'onError', recordBufferMs: 1000 }) })
    const traffic = recordingTraffic(page)
    await page.goto(`${base}/quiet`)
    await page.waitForFunction('Sessionwatch.stats().recording !== null && Sessionwatch.stats().recording.held > 0', undefined, { timeout: 15_000 })
    // Past two buffer lengths, a console error (not a trigger) and a 404 (not one either), then the page closes.
    await page.evaluate('console.error("not a trigger"); fetch("/no-such-page")')
    await page.waitForTimeout(2500)
    await page.evaluate('dispatchEvent(new PageTransitionEvent("pagehide", { persisted: false }))')
    await page.waitForTimeout(500)
    const id = await sessionOf('/quiet')
    assert.deepEqual(traffic.uploads, [], 'no chunk upload')
    assert.equal(traffic.batches(), 0, 'no batch carries a chunk')
    assert.equal((await recordingOf(id)).recording.chunks, 0)
    assert.equal(await page.evaluate<number>('Sessionwatch.stats().recording.chunks'), 0)
    assert.deepEqual(pageErrors, [])
    await page.close()
  })

  it('an error uploads a replay opening with a snapshot at least recordBufferMs before it, then records on, all marked onError', async () => {
    const { page } = await open({ '/boom': pageWith(t.project.ingestKey, 'BOOM', { record: 'onError', recordBufferMs: 2000 }) })
    const traffic = recordingTraffic(page)
    await page.goto(`${base}/boom`)
    await page.waitForFunction('Sessionwatch.stats().recording !== null', undefined, { timeout: 15_000 })
    // Long enough for the first segments to be dropped: the buffer keeps 2–4 s, not the whole visit.
    await page.waitForTimeout(7000)
    assert.deepEqual(traffic.uploads, [], 'nothing before the error')
    const errorAt = await page.evaluate<number>('window.errorAt = Date.now(), setTimeout(() => { throw new Error("boom") }), window.errorAt')
    await page.waitForTimeout(1000)
    await page.evaluate('document.querySelector("h1").textContent = "AFTER-TRIGGER"')
    const id = await sessionOf('/boom')
    const { rec, text } = await eventually(async () => {
      const r = await recordingOf(id)
      const all = await textOf(id, r.chunks)
      return all.includes('AFTER-TRIGGER') ? { rec: r, text: all } : null
    }, 'the replay up to after the error')
    const first = rec.chunks[0]
    assert.ok(first?.fullSnapshot, `the replay opens with a full snapshot: ${JSON.stringify(rec.chunks)}`)
    const startsBefore = errorAt - Date.parse(first.startedAt)
    assert.ok(startsBefore >= 2000, `the replay starts ${startsBefore} ms before the error, at least recordBufferMs`)
    assert.ok(startsBefore <= 2 * 2000 + 1000, `and little more: ${startsBefore} ms (two segments of 2 s at most, and a chunk)`)
    assert.ok(!text.includes('"tick-1"') && !text.includes('tick-10<') && !text.includes('tick-10"'), 'the first seconds were dropped')
    assert.ok(traffic.uploads.length >= 3 && traffic.uploads.every((u) => new URL(u).searchParams.get('mode') === 'onError'),
      `every upload, the buffer's and those after the error, says mode=onError: ${traffic.uploads.length}`)
    assert.ok(rec.chunks.some((c) => Date.parse(c.startedAt) > errorAt + 500), 'chunks recorded after the error are stored')
    await page.close()
  })

  it('an error on the visit\'s next page uploads what the page before held', async () => {
    const { page } = await open({
      '/one': pageWith(t.project.ingestKey, 'PAGE-ONE', { record: 'onError', recordBufferMs: 60_000 }),
      '/two': pageWith(t.project.ingestKey, 'PAGE-TWO', { record: 'onError', recordBufferMs: 60_000 }),
    })
    const traffic = recordingTraffic(page)
    await page.goto(`${base}/one`)
    await page.waitForFunction('Sessionwatch.stats().recording !== null && Sessionwatch.stats().recording.held > 0', undefined, { timeout: 15_000 })
    await page.waitForTimeout(1500)
    const lastTick = await page.evaluate<number>('window.n')
    await page.goto(`${base}/two`)
    await page.waitForFunction('Sessionwatch.stats().recording !== null', undefined, { timeout: 15_000 })
    assert.deepEqual(traffic.uploads, [], 'nothing before the error')
    await page.evaluate('Sessionwatch.captureError(new Error("on page two"))')
    const id = await sessionOf('/one')
    const text = await eventually(async () => {
      const all = await textOf(id, (await recordingOf(id)).chunks)
      return all.includes('PAGE-TWO') && all.includes('PAGE-ONE') ? all : null
    }, 'both pages in the replay')
    assert.ok(text.indexOf('PAGE-ONE') < text.indexOf('PAGE-TWO'), 'page one first')
    assert.ok(text.includes(`tick-${lastTick - 3}`), `page one's last seconds (tick-${lastTick - 3}) are in it`)
    const pages = new Set(traffic.uploads.map((u) => new URL(u).searchParams.get('chunk')?.split('-')[0]))
    assert.equal(pages.size, 2, 'chunks of two pages, uploaded by the second')
    assert.deepEqual(await page.evaluate('Object.keys(sessionStorage).filter((k) => k.startsWith("sw_rec_"))'), [], 'what was carried is cleared once sent')
    await page.close()
  })

  it('decides the sampling once per visit and keeps it across its pages', async () => {
    // Page one draws "not recorded" (both rates 0); page two asks for every visit whole, but the visit was decided.
    const { page } = await open({
      '/off-one': pageWith(t.project.ingestKey, 'OFF-ONE', { recordSampleRate: 0, recordOnErrorSampleRate: 0 }),
      '/off-two': pageWith(t.project.ingestKey, 'OFF-TWO', { recordSampleRate: 1 }),
    })
    const recorderLoads: string[] = []
    page.on('request', (r) => { if (r.url().includes('/sdk/recorder.js')) recorderLoads.push(r.url()) })
    const traffic = recordingTraffic(page)
    for (const path of ['/off-one', '/off-two']) {
      await page.goto(`${base}${path}`)
      await page.waitForFunction('Sessionwatch.stats().sent > 0', undefined, { timeout: 15_000 })
      await page.waitForTimeout(500)
      assert.equal(await page.evaluate('Sessionwatch.stats().recording'), null, `${path}: not recording`)
    }
    assert.deepEqual(recorderLoads, [], 'the recorder is never even loaded')
    assert.deepEqual(traffic.uploads, [])

    // And the other way: a visit drawn whole stays whole on a page that would hold it.
    const { page: other } = await open({
      '/whole-one': pageWith(t.project.ingestKey, 'WHOLE-ONE', { recordSampleRate: 1 }),
      '/whole-two': pageWith(t.project.ingestKey, 'WHOLE-TWO', { record: 'onError' }),
    })
    const wholeTraffic = recordingTraffic(other)
    await other.goto(`${base}/whole-one`)
    await other.waitForFunction('Sessionwatch.stats().recording !== null && Sessionwatch.stats().recording.chunks > 0', undefined, { timeout: 15_000 })
    await other.goto(`${base}/whole-two`)
    await other.waitForFunction('Sessionwatch.stats().recording !== null && Sessionwatch.stats().recording.chunks > 0', undefined, { timeout: 15_000 })
    assert.equal(await other.evaluate('Sessionwatch.stats().recording.held'), undefined, 'page two records whole, holding nothing')
    assert.ok(wholeTraffic.uploads.every((u) => !new URL(u).searchParams.has('mode')), 'whole recordings carry no mode')
    await page.close()
    await other.close()
  })

  it('an older recorder (self-hosted) is not started for a held visit, and today\'s recorder records an older SDK\'s visit whole', async () => {
    // A recorder from before record: 'onError' has no `modes`: it would send the visit whole.
    const oldRecorder = 'window.SessionwatchRecorder = { start() { window.oldStarted = (window.oldStarted || 0) + 1; return () => ({ chunks: 0, bytes: 0, dropped: 0 }) } }'
    const { page, pageErrors } = await open({
      '/old-held': pageWith(t.project.ingestKey, 'OLD-HELD', { record: 'onError', recorderUrl: '/old-recorder.js' }),
      '/old-whole': pageWith(t.project.ingestKey, 'OLD-WHOLE', { recorderUrl: '/old-recorder.js' }),
      '/old-recorder.js': oldRecorder,
    })
    await page.goto(`${base}/old-held`)
    await page.waitForFunction('window.SessionwatchRecorder !== undefined')
    await page.waitForTimeout(300)
    assert.equal(await page.evaluate('window.oldStarted ?? 0'), 0, 'not started for a held visit')
    await page.evaluate('sessionStorage.clear()')
    await page.goto(`${base}/old-whole`)
    await page.waitForFunction('window.oldStarted === 1')

    // An SDK from before it lends no mode, bufferMs nor onTrigger: today's recorder sends the visit whole at once.
    await page.goto(`${base}/old-held`)
    const sent = await page.evaluate<string[]>(`new Promise((resolve) => {
      const bodies = []
      const s = document.createElement('script')
      s.src = '/sdk/recorder.js'
      s.onload = () => {
        window.SessionwatchRecorder.start({
          sessionKey: () => 'old-sdk-visit', page: location.href, checkoutMs: 300000, maxChunkBytes: 524288,
          send: (body) => { bodies.push(body); resolve(bodies); return Promise.resolve({ ok: true }) }, beacon: () => false,
        })
      }
      document.head.appendChild(s)
    })`)
    const batch = JSON.parse(sent[0] ?? '{}') as { recording?: { id: string; mode?: string }[] }
    assert.equal(batch.recording?.length, 1, 'the snapshot leaves at once, as a batch')
    assert.equal(batch.recording[0]?.mode, undefined, 'with no mode')
    assert.deepEqual(pageErrors, [])
    await page.close()
  })
})
