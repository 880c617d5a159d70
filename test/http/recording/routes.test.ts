import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, it } from 'node:test'
import { gunzipSync, gzipSync } from 'node:zlib'
import { sweep } from '../../../src/retention/service.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { json } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'
import { chunkUpload, rrwebEvents } from '../../helpers/recording.ts'
import { assertChunksIn, describeStores, startStoreApp, type StoreApp } from '../../helpers/stores.ts'

interface RecordingBody {
  recording: { available: boolean; chunks: number; bytes: number; droppedChunks: number }
  chunks: { id: string; startedAt: string; endedAt: string; events: number; bytes: number; fullSnapshot: boolean }[]
}
type IngestAnswer = { sessionId: string; recording?: { accepted: number; duplicates: number; dropped: number; full: boolean } }

for (const engine of testEngines()) {
  describeStores(`recording [${engine}]`, (kind) => {
    let t: StoreApp
    // Small limits so the tests reach them: 4 KiB per chunk, 6 KiB per session.
    before(async () => { t = await startStoreApp(engine, kind, { RECORDING_MAX_CHUNK_BYTES: '4096', RECORDING_MAX_SESSION_BYTES: '6144' }) })
    after(() => t.close())
    const upload = async (sessionKey: string, chunks: unknown[], extra: Record<string, unknown> = {}) => {
      const res = await t.ingest(batch(sessionKey, [], { recording: chunks, ...extra }))
      assert.equal(res.statusCode, 200, res.body)
      return json<IngestAnswer>(res)
    }
    const recordingOf = async (id: string) => json<RecordingBody>(await t.get(`/api/v1/sessions/${id}/recording`))

    it('stores chunks with the session and reflects them in getSession and the chunk list', async () => {
      const start = Date.now() - 60_000
      const a = await upload('rec-basic-1', [chunkUpload('p1-0', rrwebEvents(start))])
      assert.deepEqual(a.recording, { accepted: 1, duplicates: 0, dropped: 0, full: false })
      await upload('rec-basic-1', [chunkUpload('p1-1', rrwebEvents(start + 10_000, 1))])
      const detail = json<{ session: { recording: unknown; startedAt: string } }>(await t.get(`/api/v1/sessions/${a.sessionId}`))
      assert.deepEqual(detail.session.recording, { available: true, chunks: 2 })
      assert.equal(detail.session.startedAt, new Date(start).toISOString(), 'recorded activity opens the session')
      const rec = await recordingOf(a.sessionId)
      assert.equal(rec.recording.chunks, 2)
      assert.equal(rec.recording.droppedChunks, 0)
      assert.deepEqual(rec.chunks.map((c) => [c.id, c.events, c.fullSnapshot]), [['p1-0', 5, true], ['p1-1', 3, true]])
      assert.deepEqual([rec.chunks[0]?.startedAt, rec.chunks[0]?.endedAt],
        [new Date(start).toISOString(), new Date(start + 3000).toISOString()])
      assert.equal(rec.recording.bytes, rec.chunks.reduce((n, c) => n + c.bytes, 0))
      await assertChunksIn(t.app.db, t.store, a.sessionId)
    })

    it('serves a chunk as gzip when accepted and as plain JSON otherwise', async () => {
      const events = rrwebEvents(Date.now() - 5000, 2, 'chunk body')
      const { sessionId } = await upload('rec-serve-1', [chunkUpload('c0', events)])
      const url = `/api/v1/sessions/${sessionId}/recording/chunks/c0`
      const gz = await t.app.inject({ url, headers: { authorization: `Bearer ${t.project.apiKey}`, 'accept-encoding': 'gzip, br' } })
      assert.equal(gz.statusCode, 200)
      assert.equal(gz.headers['content-encoding'], 'gzip')
      assert.match(String(gz.headers['content-type']), /^application\/json/)
      assert.deepEqual(JSON.parse(gunzipSync(gz.rawPayload).toString()), events)
      const plain = await t.app.inject({ url, headers: { authorization: `Bearer ${t.project.apiKey}`, 'accept-encoding': 'gzip;q=0' } })
      assert.equal(plain.headers['content-encoding'], undefined)
      assert.deepEqual(plain.json(), events)
      assert.equal((await t.get(`/api/v1/sessions/${sessionId}/recording/chunks/nope`)).statusCode, 404)
    })

    it('stores a retried chunk once', async () => {
      const chunk = chunkUpload('retry-0', rrwebEvents(Date.now() - 3000))
      const first = await upload('rec-retry-1', [chunk])
      const again = await upload('rec-retry-1', [chunk])
      assert.deepEqual(again.recording, { accepted: 0, duplicates: 1, dropped: 0, full: false })
      assert.equal((await recordingOf(first.sessionId)).recording.chunks, 1)
    })

    it('drops and counts a chunk over the per-chunk limit, once however often it is retried', async () => {
      const big = chunkUpload('big-0', null, gzipSync(randomBytes(6000)))
      const a = await upload('rec-big-1', [big, chunkUpload('ok-0', rrwebEvents(Date.now() - 2000))])
      assert.deepEqual(a.recording, { accepted: 1, duplicates: 0, dropped: 1, full: false })
      await upload('rec-big-1', [big])
      const rec = await recordingOf(a.sessionId)
      assert.deepEqual([rec.recording.chunks, rec.recording.droppedChunks], [1, 1])
      assert.deepEqual(rec.chunks.map((c) => c.id), ['ok-0'])
      assert.equal((await t.get(`/api/v1/sessions/${a.sessionId}/recording/chunks/big-0`)).statusCode, 404)
    })

    it('drops chunks once the session holds its byte limit', async () => {
      // Incompressible text makes each chunk ~2.7 KiB compressed: two fit in 6 KiB, the third does not.
      const chunk = (i: number) => chunkUpload(`fill-${i}`, rrwebEvents(Date.now() - 9000 + i, 1, randomBytes(2000).toString('base64')))
      const a = await upload('rec-fill-1', [chunk(0), chunk(1), chunk(2)])
      assert.deepEqual(a.recording, { accepted: 2, duplicates: 0, dropped: 1, full: true }, 'the answer says the session is full')
      const later = await upload('rec-fill-1', [chunk(3)])
      assert.deepEqual([later.recording?.dropped, later.recording?.full], [1, true])
      const rec = await recordingOf(a.sessionId)
      assert.equal(rec.recording.chunks, 2)
      assert.equal(rec.recording.droppedChunks, 2)
      assert.ok(rec.recording.bytes <= 6144)
    })

    it('answers 400 for data that is not gzip of rrweb events, naming the chunk', async () => {
      const cases = [
        chunkUpload('bad-0', null, Buffer.from('not gzip')),
        chunkUpload('bad-1', null, gzipSync('{"not":"an array"}')),
        chunkUpload('bad-2', [{ type: 'x', timestamp: 1 }]),
        chunkUpload('bad-3', []),
        { id: 'bad-4', data: '!!not base64!!' },
      ]
      for (const c of cases) {
        const res = await t.ingest(batch('rec-bad-1', [], { recording: [c] }))
        assert.equal(res.statusCode, 400, `${c.id}: ${res.body}`)
        assert.equal(json(res).code, 'invalid_body')
        assert.match(String(json(res).parameter), /^(\/)?recording/)
      }
    })

    it('hides another project\'s recording and needs the API key', async () => {
      const { sessionId } = await upload('rec-foreign-1', [chunkUpload('f0', rrwebEvents(Date.now() - 1000))])
      const other = await t.newProject('Other')
      assert.equal((await t.get(`/api/v1/sessions/${sessionId}/recording`, other.apiKey)).statusCode, 404)
      assert.equal((await t.get(`/api/v1/sessions/${sessionId}/recording/chunks/f0`, other.apiKey)).statusCode, 404)
      const anon = await t.app.inject({ url: `/api/v1/sessions/${sessionId}/recording` })
      assert.equal(anon.statusCode, 401)
      assert.equal((await t.get(`/api/v1/sessions/${sessionId}/recording`, t.project.ingestKey)).statusCode, 401)
    })

    it('answers 404 for ids holding a NUL byte or longer than any that exists, after the key check', async () => {
      const { sessionId } = await upload('rec-odd-ids-1', [chunkUpload('n0', rrwebEvents(Date.now() - 1000))])
      const urls = [
        '/api/v1/sessions/abc%00/recording', `/api/v1/sessions/abc%00/recording/chunks/n0`,
        `/api/v1/sessions/${sessionId}/recording/chunks/n0%00`,
        `/api/v1/sessions/${'a'.repeat(201)}/recording`, `/api/v1/sessions/${'a'.repeat(150)}/recording/chunks/n0`,
        `/api/v1/sessions/${sessionId}/recording/chunks/${'c'.repeat(101)}`,
      ]
      for (const url of urls) {
        assert.equal((await t.app.inject({ url })).statusCode, 401, `${url} without a key`)
        const res = await t.get(url)
        assert.equal(res.statusCode, 404, `${url}: ${res.body}`)
        assert.equal(json(res).code, 'not_found')
      }
    })

    it('a session without a recording lists no chunks', async () => {
      const res = await t.ingest(batch('rec-none-1', [{ type: 'ERROR', message: 'x' }]))
      const rec = await recordingOf(json<IngestAnswer>(res).sessionId)
      assert.deepEqual(rec.recording, { available: false, chunks: 0, bytes: 0, droppedChunks: 0, mode: null, evicted: false, evictedBytes: 0 })
      assert.deepEqual(rec.chunks, [])
    })

    it('retention deletes the chunks together with the session', async () => {
      const old = Date.now() - 31 * DAY_MS
      // Sent without sentAt, so no skew correction: the chunk keeps its 31-day-old times, past the 30-day retention.
      const { sessionId } = await upload('rec-old-1', [chunkUpload('o0', rrwebEvents(old))])
      assert.equal((await t.get(`/api/v1/sessions/${sessionId}/recording`)).statusCode, 404)
      await sweep(t.app.db, Date.now())
      const left = await t.app.db.selectFrom('recording_chunks').select('id').where('session_id', '=', sessionId).execute()
      assert.deepEqual(left, [])
    })
  })
}
