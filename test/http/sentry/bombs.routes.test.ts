import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { after, before, describe, it, type TestContext } from 'node:test'
import { deflateSync, gzipSync } from 'node:zlib'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { chunkUpload } from '../../helpers/recording.ts'
import { envelope, errorEvent, postEnvelope } from '../../helpers/sentry.ts'

const hex = (): string => randomBytes(16).toString('hex')
const MiB = 1024 * 1024

/** rrweb-looking JSON that inflates to `bytes`: a real chunk's opening, then white space JSON allows. */
const bombJson = (bytes: number): Buffer =>
  Buffer.concat([Buffer.from('[{"type":4,"timestamp":1},'), Buffer.alloc(bytes - 52, 0x20), Buffer.from('{"type":3,"timestamp":2}]')])

/** Compressed once per process: each is a few hundred kilobytes standing for tens of megabytes or a gigabyte. */
const CHUNK_BOMB = gzipSync(bombJson(32 * MiB))
const SEGMENT_BOMB = deflateSync(bombJson(32 * MiB))
const BODY_BOMB = gzipSync(Buffer.concat([Buffer.from('{}\n{"type":"event"}\n'), Buffer.alloc(1024 * MiB, 0x20)]))

/**
 * A request's answer with its time, reported beside the test with the growth of the process's resident memory and
 * the longest the event loop was blocked meanwhile.
 */
async function measured<T>(ctx: TestContext, what: string, run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const rss = process.memoryUsage().rss
  const loop = monitorEventLoopDelay({ resolution: 5 })
  loop.enable()
  const started = performance.now()
  const result = await run()
  const ms = performance.now() - started
  loop.disable()
  const blocked = loop.max / 1e6
  ctx.diagnostic(`${what}: ${ms.toFixed(0)} ms, RSS +${((process.memoryUsage().rss - rss) / MiB).toFixed(0)} MiB, event loop blocked ≤ ${blocked.toFixed(0)} ms`)
  return { result, ms }
}

for (const engine of testEngines()) {
  describe(`decompression bombs are refused whole, fast, and store nothing [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())

    const sessionKeys = async (): Promise<string[]> =>
      json<{ sessions: { sessionKey: string }[] }>(await t.get('/api/v1/sessions?limit=200')).sessions.map((s) => s.sessionKey)
    const refused = (res: { statusCode: number; body: string }) => {
      assert.equal(res.statusCode, 413, res.body)
      assert.equal(json(res as Parameters<typeof json>[0]).code, 'payload_too_large')
      return json<{ message: string }>(res as Parameters<typeof json>[0]).message
    }

    it('an ingest batch of 9 gzip chunks each inflating to 32 MiB: 413, and no session', async (ctx) => {
      const body = {
        sessionKey: 'bomb-batch-visit', batchId: 'bomb-1', events: [{ type: 'NAVIGATION', createdAt: Date.now(), url: 'https://shop.example/' }],
        recording: Array.from({ length: 9 }, (_, i) => chunkUpload(`bomb-${i}`, null, CHUNK_BOMB)),
      }
      assert.ok(JSON.stringify(body).length < 1024 * 1024, 'within the ingest body limit')
      const { result, ms } = await measured(ctx, 'batch of 9 bombs', () => t.ingest(body))
      assert.match(refused(result), /^recording\[0\]\.data inflates to more than/)
      assert.ok(ms < 3000, `${ms} ms`)
      assert.ok(!(await sessionKeys()).includes('bomb-batch-visit'))
    })

    it('one gzip chunk as its bytes (POST /ingest/v1/recording) inflating to 32 MiB: 413, and no session', async (ctx) => {
      const query = new URLSearchParams({ key: t.project.ingestKey, sessionKey: 'bomb-raw-visit', chunk: 'bomb-raw-0' })
      const { result } = await measured(ctx, 'raw chunk bomb', () => t.app.inject({ method: 'POST', url: `/ingest/v1/recording?${query.toString()}`, payload: CHUNK_BOMB }))
      assert.match(refused(result), /^The chunk inflates to more than/)
      assert.ok(!(await sessionKeys()).includes('bomb-raw-visit'))
    })

    it('a Sentry envelope with an error and a replay segment inflating to 32 MiB: 413, and nothing of it stored', async (ctx) => {
      const replayId = hex()
      const errorId = hex()
      const segment = Buffer.concat([Buffer.from('{"segment_id":0}\n'), SEGMENT_BOMB])
      const body = envelope({ event_id: replayId, sent_at: new Date().toISOString() }, [
        [{ type: 'event' }, errorEvent(errorId, { contexts: { replay: { replay_id: replayId } } })],
        [{ type: 'replay_event' }, { type: 'replay_event', replay_id: replayId, segment_id: 0, timestamp: Date.now() / 1000, urls: ['https://shop.example/'] }],
        [{ type: 'replay_recording', length: segment.length }, segment],
      ])
      const { result, ms } = await measured(ctx, 'envelope with a bomb segment', () => postEnvelope(t, body))
      assert.match(refused(result), /^Replay segment 0 inflates to more than/)
      assert.ok(ms < 3000, `${ms} ms`)
      const keys = await sessionKeys()
      assert.ok(!keys.includes(`sentry-r-${replayId}`) && !keys.includes(`sentry-e-${errorId}`), keys.join(', '))
    })

    it('a gzip-encoded envelope inflating to 1 GiB: 413 as soon as it passes its bound', async (ctx) => {
      const { result, ms } = await measured(ctx, 'gzip body bomb', () => postEnvelope(t, BODY_BOMB, { headers: { 'content-encoding': 'gzip' } }))
      assert.match(refused(result), /^The envelope inflates to more than/)
      assert.ok(ms < 3000, `${ms} ms`)
    })

    it('a bomb with a wrong or no key is refused before it is inflated: 403 and 401, at once', async (ctx) => {
      const wrong = await measured(ctx, 'gzip body bomb, wrong key', () =>
        postEnvelope(t, BODY_BOMB, { headers: { 'content-encoding': 'gzip' }, query: 'sentry_key=0123456789abcdef0123456789abcdef' }))
      assert.equal(wrong.result.statusCode, 403)
      // No key outside the body: only the header line is inflated, to look for a tunnel's dsn, and there is none.
      const none = await measured(ctx, 'gzip body bomb, no key', () => postEnvelope(t, BODY_BOMB, { headers: { 'content-encoding': 'gzip' }, query: '' }))
      assert.equal(none.result.statusCode, 401)
      for (const { ms } of [wrong, none]) assert.ok(ms < 500, `${ms} ms`)
    })

    it('a tunnel\'s gzip-encoded envelope is authenticated by its dsn and stored', async () => {
      const id = hex()
      const { dsnKey, sentryProjectId } = t.project
      const body = envelope({ event_id: id, dsn: `https://${dsnKey}@sw.example.com/${sentryProjectId}` }, [[{ type: 'event' }, errorEvent(id, { user: { id: `tunnel-${id}` } })]])
      const res = await postEnvelope(t, gzipSync(body), { query: '', headers: { 'content-encoding': 'gzip' } })
      assert.equal(res.statusCode, 200, res.body)
      assert.ok((await sessionKeys()).includes(`sentry-e-${id}`))
    })
  })
}
