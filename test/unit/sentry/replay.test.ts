import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { deflateSync, gunzipSync, gzipSync } from 'node:zlib'
import { DEFAULT_SLOW_THRESHOLD_MS } from '../../../common/limits.ts'
import { MAX_CHUNK_JSON_BYTES, MAX_REQUEST_INFLATED_BYTES } from '../../../src/contract/limits.ts'
import { InflateBudget } from '../../../src/http/inflate.ts'
import { recordingChunk } from '../../../src/sentry/replay.ts'
import { rrwebEvents } from '../../helpers/recording.ts'

const budget = () => new InflateBudget(MAX_REQUEST_INFLATED_BYTES)

const REPLAY = 'c'.repeat(32)
const T = 1_795_000_000 // seconds
const segment = (n: number, data: Buffer) => Buffer.concat([Buffer.from(`{"segment_id":${n}}\n`), data])
const span = (op: string, description: string, ms: number, data: Record<string, unknown> = {}) =>
  ({ type: 5, timestamp: T * 1000, data: { tag: 'performanceSpan', payload: { op, description, startTimestamp: T, endTimestamp: T + ms / 1000, data } } })

describe('Sentry replay recordings', () => {
  it('takes zlib, gzip and plain JSON, and names the chunk by replay and segment', async () => {
    const events = rrwebEvents(T * 1000, 1)
    for (const data of [deflateSync(JSON.stringify(events)), gzipSync(JSON.stringify(events)), Buffer.from(JSON.stringify(events))]) {
      const read = await recordingChunk(REPLAY, segment(12, data), undefined, budget())
      assert.ok('chunk' in read, JSON.stringify(read))
      assert.equal(read.chunk.id, `sentry-${REPLAY}-000012`)
      assert.deepEqual(JSON.parse(gunzipSync(read.chunk.gzip).toString()), events)
    }
  })

  it('drops, saying why, what is not a segment of rrweb events', async () => {
    const cases: [Buffer, RegExp][] = [
      [Buffer.from('{"segment_id":"x"}\n[]'), /segment_id/],
      [segment(0, Buffer.from([0x78, 0x9c, 1, 2])), /does not inflate/],
      [segment(0, Buffer.from('[{"type":"x"}]')), /not an rrweb event/],
      [Buffer.from('{not json\n[]'), /segment_id/],
    ]
    for (const [payload, why] of cases) {
      const chunk = await recordingChunk(REPLAY, payload, undefined, budget())
      assert.ok('dropped' in chunk && why.test(chunk.dropped), JSON.stringify(chunk))
    }
  })

  it('refuses a segment that inflates beyond the chunk limit (413), without inflating it all', async () => {
    // A JSON array of rrweb events long enough to pass the limit: its first bytes are what a real segment's are.
    const bomb = deflateSync(Buffer.concat([Buffer.from('[{"type":4,"timestamp":1},'), Buffer.alloc(MAX_CHUNK_JSON_BYTES, 0x20), Buffer.from('{"type":3,"timestamp":2}]')]))
    const started = performance.now()
    await assert.rejects(recordingChunk(REPLAY, segment(0, bomb), undefined, budget()), (error: { statusCode?: number; code?: string }) =>
      error.statusCode === 413 && error.code === 'payload_too_large')
    assert.ok(performance.now() - started < 1000)
  })

  it('turns the replay\'s slow requests and resources into SLOW_REQUEST, and nothing else', async () => {
    const slow = DEFAULT_SLOW_THRESHOLD_MS + 500
    const events = [...rrwebEvents(T * 1000, 1),
      span('resource.fetch', '/api/search?q=shoes', slow, { method: 'GET', statusCode: 200 }),
      span('resource.script', 'https://cdn.example/app.js', slow, { statusCode: 200 }),
      span('resource.fetch', '/api/fast', 20, { method: 'GET', statusCode: 200 }),
      span('resource.fetch', 'https://sw.example/ingest/v1/batch', slow, { method: 'POST', statusCode: 200 }),
      span('navigation.navigate', 'https://shop.example/', slow),
      { type: 5, timestamp: T * 1000, data: { tag: 'breadcrumb', payload: { category: 'ui.click' } } },
    ]
    const chunk = await recordingChunk(REPLAY, segment(0, deflateSync(JSON.stringify(events))), undefined, budget(), 'https://shop.example/p',
      (url) => url.includes('/ingest/v1/'))
    assert.ok('events' in chunk)
    assert.deepEqual(chunk.events.map(({ id: _id, ...e }) => e), [
      { type: 'SLOW_REQUEST', createdAt: T * 1000, url: 'https://shop.example/api/search?q=shoes', durationMs: slow, method: 'GET', statusCode: 200 },
      { type: 'SLOW_REQUEST', createdAt: T * 1000, url: 'https://cdn.example/app.js', durationMs: slow, statusCode: 200, message: 'script' },
    ])
    const again = await recordingChunk(REPLAY, segment(0, deflateSync(JSON.stringify(events))), undefined, budget(), 'https://shop.example/p')
    assert.ok('events' in again)
    assert.equal(again.events[0]?.id, chunk.events[0]?.id, 'a resent segment gives the same ids')
  })
})
