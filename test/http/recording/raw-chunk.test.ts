import assert from 'node:assert/strict'
import { gunzipSync, gzipSync } from 'node:zlib'
import { after, before, it } from 'node:test'
import { json } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { rrwebEvents } from '../../helpers/recording.ts'
import { assertChunksIn, describeStores, startStoreApp, type StoreApp } from '../../helpers/stores.ts'

interface Result { sessionId: string | null; recording?: { accepted: number; duplicates: number; dropped: number } }

for (const engine of testEngines()) {
  describeStores(`POST /ingest/v1/recording: a chunk as its gzip bytes [${engine}]`, (kind) => {
    let t: StoreApp
    before(async () => { t = await startStoreApp(engine, kind) })
    after(() => t.close())

    const post = (query: Record<string, string>, body: Buffer, headers: Record<string, string> = {}) => t.app.inject({
      method: 'POST', url: `/ingest/v1/recording?${new URLSearchParams({ key: t.project.ingestKey, ...query }).toString()}`, payload: body, headers,
    })

    it('stores the chunk like a batch\'s recording entry, without a Content-Type, once however often it is retried', async () => {
      const at = Date.now() - 5000
      const bytes = gzipSync(JSON.stringify(rrwebEvents(at)))
      const first = await post({ sessionKey: 'raw-chunk-visit-1', chunk: 'page1-0', sentAt: String(Date.now()), page: 'https://shop.example/?utm_source=raw' }, bytes)
      assert.equal(first.statusCode, 200, first.body)
      const stored = json<Result>(first)
      assert.deepEqual(stored.recording, { accepted: 1, duplicates: 0, dropped: 0, full: false })
      const again = json<Result>(await post({ sessionKey: 'raw-chunk-visit-1', chunk: 'page1-0' }, bytes, { 'content-type': 'application/octet-stream' }))
      assert.deepEqual([again.sessionId, again.recording], [stored.sessionId, { accepted: 0, duplicates: 1, dropped: 0, full: false }])
      const rec = json<{ recording: { chunks: number }; chunks: { id: string; fullSnapshot: boolean }[] }>(
        await t.get(`/api/v1/sessions/${stored.sessionId ?? ''}/recording`))
      assert.deepEqual(rec.chunks.map((c) => [c.id, c.fullSnapshot]), [['page1-0', true]])
      const session = json<{ session: { utm: unknown; recording: { chunks: number } } }>(await t.get(`/api/v1/sessions/${stored.sessionId ?? ''}`)).session
      assert.deepEqual(session.utm, { utm_source: 'raw' }, 'the page in the query is the landing page')
      await assertChunksIn(t.app.db, t.store, stored.sessionId ?? '')
    })

    it('takes the plain JSON array too (a closing page\'s last events), stored compressed and served like any chunk', async () => {
      const events = rrwebEvents(Date.now() - 3000)
      const res = await post({ sessionKey: 'raw-chunk-visit-3', chunk: 'page3-7' }, Buffer.from(`\n ${JSON.stringify(events)}`), { 'content-type': 'text/plain;charset=UTF-8' })
      assert.equal(res.statusCode, 200, res.body)
      const { sessionId, recording } = json<Result>(res)
      assert.deepEqual(recording, { accepted: 1, duplicates: 0, dropped: 0, full: false })
      const chunk = await t.app.inject({
        url: `/api/v1/sessions/${sessionId ?? ''}/recording/chunks/page3-7`,
        headers: { authorization: `Bearer ${t.project.apiKey}`, 'accept-encoding': 'gzip' },
      })
      assert.equal(chunk.headers['content-encoding'], 'gzip')
      assert.deepEqual(JSON.parse(gunzipSync(chunk.rawPayload).toString()), events)
      await assertChunksIn(t.app.db, t.store, sessionId ?? '')
      const bad = await post({ sessionKey: 'raw-chunk-visit-3', chunk: 'page3-8' }, Buffer.from('[{"type":"x"}]'))
      assert.equal(bad.statusCode, 400)
      assert.match(json<{ message: string }>(bad).message, /^body event 0 is not an rrweb event/)
    })

    it('refuses what is not a recording with a 400 naming it, and a missing or wrong key with 401', async () => {
      const bad = await post({ sessionKey: 'raw-chunk-visit-2', chunk: 'x-0' }, Buffer.from('not gzip'))
      assert.equal(bad.statusCode, 400)
      assert.match(json<{ message: string }>(bad).message, /gzip/)
      const noChunk = await post({ sessionKey: 'raw-chunk-visit-2' }, gzipSync('[]'))
      assert.deepEqual([noChunk.statusCode, json<{ message: string }>(noChunk).message.includes('chunk')], [400, true])
      const noKey = await t.app.inject({ method: 'POST', url: '/ingest/v1/recording?sessionKey=raw-chunk-visit-2&chunk=x-0', payload: gzipSync('[]') })
      assert.equal(noKey.statusCode, 401)
      const wrongKey = await post({ key: 'sw_ing_nope', sessionKey: 'raw-chunk-visit-2', chunk: 'x-0' }, gzipSync('[]'))
      assert.equal(wrongKey.statusCode, 401)
    })

    it('answers a CORS preflight, so a page on another origin may send it', async () => {
      const res = await t.app.inject({
        method: 'OPTIONS', url: '/ingest/v1/recording', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
      })
      assert.equal(res.statusCode, 204)
      assert.equal(res.headers['access-control-allow-origin'], '*')
    })
  })
}
