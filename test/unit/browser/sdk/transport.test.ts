import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeQueue } from '../../../../browser/sdk/queue.ts'
import { makeTransport, retryAfter } from '../../../../browser/sdk/transport.ts'

type Call = { url: string; init: RequestInit }
const fakeFetch = (status: number, headers: Record<string, string> = {}, calls: Call[] = []): typeof fetch =>
  ((url: string, init: RequestInit) => {
    calls.push({ url, init })
    return Promise.resolve(new Response('{}', { status, headers }))
  }) as unknown as typeof fetch

describe('SDK transport', () => {
  const opts = { endpoint: 'https://sw.example/', ingestKey: 'sw_ing_k' }

  it('posts JSON with the ingest key, keepalive for small bodies', async () => {
    const calls: Call[] = []
    const t = makeTransport(opts, fakeFetch(200, {}, calls))
    assert.deepEqual(await t.send('{"a":1}'), { ok: true })
    const [first] = calls
    assert.ok(first)
    assert.equal(first.url, 'https://sw.example/ingest/v1/batch')
    assert.equal((first.init.headers as Record<string, string>)['x-ingest-key'], 'sw_ing_k')
    assert.equal(first.init.keepalive, true)
    await t.send('x'.repeat(70_000))
    assert.equal(calls[1]?.init.keepalive, false, 'keepalive bodies are capped at 64 KiB by the Fetch spec')
  })

  it('retries 429 and 5xx after Retry-After, drops other 4xx, retries network failures', async () => {
    assert.deepEqual(await makeTransport(opts, fakeFetch(429, { 'retry-after': '7' })).send('{}'), { ok: false, fatal: false, retryAfterMs: 7000 })
    assert.deepEqual(await makeTransport(opts, fakeFetch(503)).send('{}'), { ok: false, fatal: false, retryAfterMs: null })
    assert.deepEqual(await makeTransport(opts, fakeFetch(400)).send('{}'), { ok: false, fatal: true, retryAfterMs: null })
    const failing = (() => Promise.reject(new TypeError('network'))) as unknown as typeof fetch
    assert.deepEqual(await makeTransport(opts, failing).send('{}'), { ok: false, fatal: false, retryAfterMs: null })
  })

  it('sends beacons as a string (text/plain: no preflight; no Blob, which costs a closing page more) with the key in the URL, and knows its own URLs', () => {
    const beacons: { url: string; data: string | Uint8Array }[] = []
    const t = makeTransport(opts, fakeFetch(200), (url, data) => { beacons.push({ url, data }); return true })
    assert.equal(t.beacon('{"x":1}'), true)
    const [sent] = beacons
    assert.ok(sent)
    assert.equal(sent.url, 'https://sw.example/ingest/v1/batch?key=sw_ing_k')
    assert.equal(sent.data, '{"x":1}')
    assert.equal(t.isOwn('https://sw.example/ingest/v1/batch'), true)
    assert.equal(t.isOwn('https://shop.example/api'), false)
    assert.equal(makeTransport(opts, fakeFetch(200), undefined).beacon('{}'), false, 'no sendBeacon: the caller falls back to fetch')
  })

  it('sends a recording chunk as its bytes, with no Content-Type (no preflight) and what a batch would say in the query', async () => {
    const calls: Call[] = []
    const beacons: { url: string; data: string | Uint8Array }[] = []
    const t = makeTransport(opts, fakeFetch(200, {}, calls), (url, data) => { beacons.push({ url, data }); return true })
    const query = { sessionKey: 'visit-key-1', chunk: 'p-0', sentAt: 1700000000000, page: 'https://shop.example/a?b=1' }
    const bytes = new Uint8Array([31, 139, 8, 0, 1, 2, 3])
    assert.deepEqual(await t.sendChunk(query, bytes), { ok: true, full: false })
    const [call] = calls
    assert.ok(call)
    const url = new URL(call.url)
    assert.equal(`${url.origin}${url.pathname}`, 'https://sw.example/ingest/v1/recording')
    assert.deepEqual(Object.fromEntries(url.searchParams), { key: 'sw_ing_k', sessionKey: 'visit-key-1', chunk: 'p-0', sentAt: '1700000000000', page: 'https://shop.example/a?b=1' })
    assert.deepEqual(call.init.headers, {}, 'no Content-Type and no custom header: a simple cross-origin request')
    assert.deepEqual([...new Uint8Array(call.init.body as Uint8Array)], [...bytes])
    assert.equal(t.beaconChunk(query, bytes), true)
    const full = makeTransport(opts, () => Promise.resolve(new Response('{"sessionId":"s","accepted":0,"duplicates":0,"recording":{"accepted":0,"duplicates":0,"dropped":1,"full":true}}')))
    assert.deepEqual(await full.sendChunk(query, bytes), { ok: true, full: true }, 'the answer says the session takes no more')
    const [beacon] = beacons
    assert.ok(beacon)
    assert.ok(beacon.data instanceof Uint8Array, 'bytes, not a Blob: a beacon of bytes carries no Content-Type')
    assert.deepEqual([...beacon.data], [...bytes])
  })

  it('reads Retry-After as seconds or an HTTP date', () => {
    assert.equal(retryAfter('3'), 3000)
    assert.equal(retryAfter(null), null)
    assert.equal(retryAfter('soon'), null)
    const at = retryAfter(new Date(Date.now() + 10_000).toUTCString()) ?? 0
    assert.ok(at > 8000 && at <= 10_000)
  })
})

describe('SDK queue', () => {
  it('holds at most its bound and counts what it drops, by reason', () => {
    const q = makeQueue(3)
    for (let i = 0; i < 5; i++) q.push({ id: String(i), type: 'CLICK', createdAt: i })
    assert.equal(q.size, 3)
    assert.equal(q.dropped.queue_overflow, 2)
    assert.deepEqual(q.take(2).map((e) => e.id), ['0', '1'])
    q.drop('rejected', 4)
    assert.deepEqual(q.dropped, { queue_overflow: 2, rejected: 4, retries_exhausted: 0, consent: 0 })
  })
})
