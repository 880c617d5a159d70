import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { countEventsElsewhere } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'

type Detail = { session: { events: Record<string, number>; startedAt: string; utm: unknown; ip: string; country: string }; events: { id: string; type: string; message: string | null; reqBody: string | null; createdAt: string }[] }

for (const engine of testEngines()) {
  describe(`ingest [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())
    const detail = async (sessionId: string) => json<Detail>(await t.get(`/api/v1/sessions/${sessionId}`))
    const sessionOf = (res: { json: () => unknown }) => (res.json() as { sessionId: string }).sessionId

    it('answers 401 without an ingest key, with a wrong key, and with the API key', async () => {
      const body = batch('ingest-auth-1', [{ type: 'ERROR', message: 'x' }])
      const none = await t.app.inject({ method: 'POST', url: '/ingest/v1/batch', payload: body })
      assert.equal(none.statusCode, 401)
      assert.equal(json(none).code, 'missing_ingest_key')
      const wrong = await t.ingest(body, { headers: { 'x-ingest-key': 'sw_ing_nope' } })
      assert.equal(json(wrong).code, 'invalid_ingest_key')
      const apiKey = await t.ingest(body, { headers: { 'x-ingest-key': t.project.apiKey } })
      assert.equal(apiKey.statusCode, 401)
      assert.match(String(json(apiKey).message), /secret API key, which only reads; ingest takes the ingest key/)
      const uploadKey = await t.ingest(body, { headers: { 'x-ingest-key': t.project.uploadKey } })
      assert.equal(uploadKey.statusCode, 401)
      assert.match(String(json(uploadKey).message), /secret upload key, which only uploads source maps; ingest takes the ingest key/)
    })

    it('answers 401 for an ingest key holding a NUL byte, in the query or the body', async () => {
      const body = batch('ingest-nul-key-1', [{ type: 'ERROR', message: 'x' }])
      const viaQuery = await t.app.inject({ method: 'POST', url: '/ingest/v1/batch?key=x%00', payload: body })
      const viaBody = await t.app.inject({ method: 'POST', url: '/ingest/v1/batch', payload: { ...body, key: 'sw_ing_x\u0000' } })
      for (const res of [viaQuery, viaBody]) {
        assert.equal(res.statusCode, 401, res.body)
        assert.equal(json(res).code, 'invalid_ingest_key')
      }
    })

    it('takes the key from the query and from the body of a text/plain beacon', async () => {
      const viaQuery = await t.app.inject({
        method: 'POST', url: `/ingest/v1/batch?key=${t.project.ingestKey}`, payload: batch('ingest-query-1', [{ type: 'ERROR', message: 'q' }]),
      })
      assert.equal(viaQuery.statusCode, 200, viaQuery.body)
      const beacon = await t.app.inject({
        method: 'POST', url: '/ingest/v1/batch', headers: { 'content-type': 'text/plain;charset=UTF-8' },
        payload: JSON.stringify({ key: t.project.ingestKey, ...batch('ingest-beacon-1', [{ type: 'USER_REPORT', message: 'bye' }]) }),
      })
      assert.equal(beacon.statusCode, 200, beacon.body)
      assert.equal(json(beacon).accepted, 1)
    })

    it('stores a retried batch once: same events, same counters', async () => {
      const body = batch('ingest-retry-1', [
        { type: 'ERROR', message: 'a' }, { type: 'SLOW_REQUEST', url: 'https://x/', durationMs: 5000 }, { type: 'CLICK', message: 'b' },
      ])
      const first = await t.ingest(body)
      assert.deepEqual(json(first), { sessionId: sessionOf(first), accepted: 3, duplicates: 0 })
      const again = await t.ingest(body)
      assert.deepEqual(json(again), { sessionId: sessionOf(first), accepted: 0, duplicates: 3 })
      const d = await detail(sessionOf(first))
      assert.equal(d.events.length, 3)
      assert.deepEqual(d.session.events, { total: 3, errors: 1, slow: 1 })
    })

    it('skips events whose client id is already stored, even in a different batch', async () => {
      const a = await t.ingest(batch('ingest-ids-1', [{ id: 'e1', type: 'ERROR', message: '1' }, { id: 'e2', type: 'ERROR', message: '2' }]))
      const b = await t.ingest(batch('ingest-ids-1', [{ id: 'e2', type: 'ERROR', message: '2' }, { id: 'e3', type: 'ERROR', message: '3' }]))
      assert.equal(json(b).accepted, 1)
      assert.equal(json(b).duplicates, 1)
      const d = await detail(sessionOf(a))
      assert.deepEqual(d.events.map((e) => e.id), ['e1', 'e2', 'e3'])
      assert.equal(d.session.events.errors, 3)
    })

    it('stores nothing for a batch with no events: no session opened, no lastSeenAt moved', async () => {
      const before = await t.app.db.selectFrom('sessions').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()
      const fresh = await t.ingest(batch('ingest-empty-new', []))
      assert.equal(fresh.statusCode, 200, fresh.body)
      assert.deepEqual(json(fresh), { sessionId: null, accepted: 0, duplicates: 0 })
      const after = await t.app.db.selectFrom('sessions').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()
      assert.equal(Number(after.n), Number(before.n), 'no session opened')

      const createdAt = Date.now() - 3_600_000
      const first = await t.ingest(batch('ingest-empty-live', [{ type: 'ERROR', message: 'x', createdAt }], { sentAt: Date.now() }))
      const seen = (await detail(sessionOf(first))).session
      const empty = await t.ingest(batch('ingest-empty-live', [], { sentAt: Date.now() }))
      assert.deepEqual(json(empty), { sessionId: sessionOf(first), accepted: 0, duplicates: 0 })
      assert.deepEqual((await detail(sessionOf(first))).session, seen, 'lastSeenAt and counters unchanged')
    })

    it('has the batch committed when it answers 2xx', async () => {
      const res = await t.ingest(batch('ingest-durable-1', [{ type: 'ERROR', message: 'on disk' }]))
      assert.equal(res.statusCode, 200)
      assert.equal(await countEventsElsewhere(engine, t.databaseUrl, sessionOf(res)), 1, 'a second connection sees it')
    })

    it('accepts further event types matching the pattern, and refuses others', async () => {
      const ok = await t.ingest(batch('ingest-types-1', [{ type: 'CONSOLE_ERROR', message: 'c' }, { type: 'WEB_VITAL_2' }]))
      assert.equal(ok.statusCode, 200)
      for (const type of ['error', 'Bad-Type', '', '1ERROR', 'X'.repeat(41)]) {
        const res = await t.ingest(batch('ingest-types-2', [{ type }]))
        assert.equal(res.statusCode, 400, type)
        assert.equal(json(res).parameter, 'events[0].type')
      }
    })

    const incomplete: [Record<string, unknown>, string][] = [
      [{ type: 'ERROR' }, 'message'], [{ type: 'HTTP_ERROR', url: 'https://x/' }, 'method'],
      [{ type: 'SLOW_REQUEST', url: 'https://x/' }, 'durationMs'], [{ type: 'NAVIGATION' }, 'url'],
      [{ type: 'CLICK' }, 'message'], [{ type: 'INPUT' }, 'message'], [{ type: 'USER_REPORT', message: null }, 'message'],
    ]
    for (const [event, field] of incomplete) {
      it(`refuses a ${String(event.type)} without ${field}`, async () => {
        const res = await t.ingest(batch('ingest-fields-1', [{ type: 'CLICK', message: 'ok' }, event]))
        assert.equal(res.statusCode, 400)
        assert.equal(json(res).code, 'invalid_body')
        assert.equal(json(res).parameter, `events[1].${field}`)
        assert.equal(json(res).message, `events[1] (${String(event.type)}) needs ${field}`)
      })
    }

    it('refuses malformed bodies with 4xx JSON errors', async () => {
      const cases: [unknown, string | undefined, number][] = [
        ['{not json', 'application/json', 400],
        ['{not json', 'text/plain', 400],
        ['<xml/>', 'application/xml', 415],
        [{ batchId: 'b', events: [] }, undefined, 400],
        [{ sessionKey: 'short', batchId: 'b', events: [] }, undefined, 400],
        [{ sessionKey: 'valid-key-1', batchId: 'b', events: 'no' }, undefined, 400],
        [{ sessionKey: 'valid-key-1', batchId: 'b', events: [{ type: 'ERROR', message: 'x', statusCode: 'abc' }] }, undefined, 400],
        [{ sessionKey: 'valid-key-1', batchId: 'b', events: [{ type: 'ERROR', message: 'x', createdAt: 'yesterday' }] }, undefined, 400],
        [{ sessionKey: 'valid-key-1', batchId: 'b', sentAt: 'soon', events: [] }, undefined, 400],
        [{ sessionKey: 'valid-key-1', batchId: 'b', sentAt: '2026-01-01T10:00:00', events: [] }, undefined, 400],
        [{ sessionKey: 'valid-key-1', batchId: 'b', events: [{ type: 'ERROR', message: 'x', createdAt: '2026-02-30T00:00:00Z' }] }, undefined, 400],
      ]
      for (const [payload, type, status] of cases) {
        const headers = type ? { 'content-type': type } : {}
        const res = await t.ingest(typeof payload === 'string' ? payload : payload, { headers })
        assert.equal(res.statusCode, status, `${JSON.stringify(payload)} → ${res.body}`)
        assert.equal(typeof json(res).code, 'string')
        assert.equal(typeof json(res).message, 'string')
      }
    })

    it('keeps JSON types as sent: null stays null, a string is no status code', async () => {
      const res = await t.ingest(batch('ingest-null-1', [
        { type: 'HTTP_ERROR', url: 'https://x/', method: 'GET', statusCode: null, durationMs: null, stack: null },
      ]))
      assert.equal(res.statusCode, 200, res.body)
      const event = ((await detail(sessionOf(res))).events as unknown as Record<string, unknown>[])[0]
      assert.ok(event)
      assert.deepEqual([event.statusCode, event.durationMs, event.stack], [null, null, null])
      const text = await t.ingest(batch('ingest-null-1', [{ type: 'HTTP_ERROR', url: 'https://x/', method: 'GET', statusCode: '500' }]))
      assert.equal(text.statusCode, 400)
      assert.equal(json(text).parameter, 'events[0].statusCode')
    })

    it('limits a batch to 500 events and 1 MiB', async () => {
      const many = Array.from({ length: 501 }, () => ({ type: 'CLICK', message: 'x' }))
      const tooMany = await t.ingest(batch('ingest-limit-1', many))
      assert.equal(tooMany.statusCode, 400)
      assert.equal(json(tooMany).parameter, 'events')
      const huge = await t.ingest(batch('ingest-limit-1', [{ type: 'ERROR', message: 'x'.repeat(1024 * 1024) }]))
      assert.equal(huge.statusCode, 413)
      assert.equal(json(huge).code, 'payload_too_large')
      const exactly = await t.ingest(batch('ingest-limit-1', many.slice(0, 500)))
      assert.equal(exactly.statusCode, 200)
    })

    it('truncates oversized text with a visible marker instead of refusing it', async () => {
      const res = await t.ingest(batch('ingest-trunc-1', [{ type: 'ERROR', message: 'm'.repeat(10_000), stack: 's'.repeat(40_000) }]))
      assert.equal(res.statusCode, 200)
      const message = String((await detail(sessionOf(res))).events[0]?.message)
      assert.equal(message.length, 8192)
      assert.match(message, /…\[truncated 1\d{3} chars\]$/)
    })

    it('masks password-like fields in request bodies on the server', async () => {
      const res = await t.ingest(batch('ingest-mask-1', [
        { type: 'HTTP_ERROR', url: 'https://x/login', method: 'POST', statusCode: 401, reqBody: '{"login":"ann","password":"hunter2","nested":{"apiToken":"t"}}' },
        { type: 'HTTP_ERROR', url: 'https://x/form', method: 'POST', statusCode: 400, reqBody: 'user=ann&passwd=hunter2&pwd=x' },
      ]))
      const bodies = (await detail(sessionOf(res))).events.map((e) => e.reqBody)
      assert.deepEqual(bodies, ['{"login":"ann","password":"***","nested":{"apiToken":"***"}}', 'user=ann&passwd=***&pwd=***'])
      assert.ok(!JSON.stringify(bodies).includes('hunter2'))
    })

    it('masks Luhn-valid card numbers in bodies, messages, stacks and URLs on the server, and leaves other digits alone', async () => {
      const card = '4921 7788 0012 3456'
      const body = `{"card":"${card}","orderId":"4000000000001","createdAt":1795237011600}`
      const res = await t.ingest(batch('ingest-card-1', [
        { type: 'HTTP_ERROR', url: `https://x/pay?card=${card.replaceAll(' ', '+')}`, method: 'POST', statusCode: 402, reqBody: body,
          resBody: `{"error":"card ${card} declined"}` },
        { type: 'ERROR', message: `Payment failed for ${card}`, stack: `Error: Payment failed for ${card}\n    at pay (https://x/app.js:1:2)`,
          url: 'https://x/checkout' },
        // Masked before truncating: a number cut in two would no longer pass Luhn and would stay half readable.
        { type: 'HTTP_ERROR', url: 'https://x/big', method: 'POST', statusCode: 500, reqBody: `${'x'.repeat(65_500)} ${card} ${'y'.repeat(100)}` },
      ]))
      assert.equal(res.statusCode, 200)
      const events = (await detail(sessionOf(res))).events as unknown as Record<string, string | null>[]
      const [http, error, big] = events
      assert.ok(http && error && big)
      assert.equal(http.reqBody, '{"card":"[card …3456]","orderId":"4000000000001","createdAt":1795237011600}')
      assert.equal(http.resBody, '{"error":"card [card …3456] declined"}')
      assert.equal(http.url, 'https://x/pay?card=[card …3456]')
      assert.equal(error.message, 'Payment failed for [card …3456]')
      assert.match(String(error.stack), /^Error: Payment failed for \[card …3456\]\n/)
      assert.match(String(big.reqBody), /\[card …3456\]/)
      assert.ok(!/4921|7788 ?0012/.test(JSON.stringify(events)), 'no part of the number is stored')
    })

    it('corrects visitor clock skew with sentAt and pins future times to arrival', async () => {
      const now = Date.now()
      const skewed = batch('ingest-skew-1', [{ type: 'CLICK', message: 'a', createdAt: now - 3_600_000 - 5000 }], { sentAt: now - 3_600_000 })
      const res = await t.ingest(skewed)
      const [event] = (await detail(sessionOf(res))).events
      const at = Date.parse(event?.createdAt ?? '')
      assert.ok(Math.abs(at - (now - 5000)) < 2000, `corrected to about 5 s ago, got ${event?.createdAt}`)
      const future = await t.ingest(batch('ingest-skew-2', [{ type: 'CLICK', message: 'a', createdAt: now + 86_400_000 }]))
      const [pinned] = (await detail(sessionOf(future))).events
      assert.ok(Date.parse(pinned?.createdAt ?? '') <= Date.now())
    })

    it('takes utm from the landing page (first NAVIGATION, else page) and keeps the first', async () => {
      const res = await t.ingest(batch('ingest-utm-1', [{ type: 'CLICK', message: 'a' }], { page: 'https://x/?utm_campaign=fall&ysclid=y1&q=1' }))
      assert.deepEqual((await detail(sessionOf(res))).session.utm, { utm_campaign: 'fall', ysclid: 'y1' })
      await t.ingest(batch('ingest-utm-1', [{ type: 'NAVIGATION', url: 'https://x/?utm_campaign=other' }]))
      assert.deepEqual((await detail(sessionOf(res))).session.utm, { utm_campaign: 'fall', ysclid: 'y1' })
    })

    it('sets country from the connection IP and ignores X-Forwarded-For unless trusted', async () => {
      const res = await t.ingest(batch('ingest-geo-1', [{ type: 'CLICK', message: 'a' }]),
        { remoteAddress: '77.88.8.8', headers: { 'x-forwarded-for': '8.8.8.8' } })
      const s = (await detail(sessionOf(res))).session
      assert.equal(s.ip, '77.88.8.8')
      assert.equal(s.country, 'RU')
    })

    it('answers CORS preflights and cross-origin posts from any origin', async () => {
      const pre = await t.app.inject({
        method: 'OPTIONS', url: '/ingest/v1/batch',
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-ingest-key' },
      })
      assert.equal(pre.statusCode, 204)
      assert.equal(pre.headers['access-control-allow-origin'], '*')
      assert.match(String(pre.headers['access-control-allow-headers']), /X-Ingest-Key/i)
      const post = await t.ingest(batch('ingest-cors-1', [{ type: 'CLICK', message: 'a' }]), { headers: { origin: 'https://shop.example' } })
      assert.equal(post.headers['access-control-allow-origin'], '*')
    })

    it('keeps one session and exact counters when batches of a new session arrive at once', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) =>
        t.ingest(batch('ingest-race-1', [{ type: 'ERROR', message: `e${i}` }, { type: 'CLICK', message: `c${i}` }]))))
      const ids = new Set(results.map((r) => sessionOf(r)))
      assert.equal(ids.size, 1)
      const d = await detail([...ids][0] ?? '')
      assert.deepEqual(d.session.events, { total: 16, errors: 8, slow: 0 })
    })
  })

  describe(`ingest behind a trusted proxy [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine, { TRUST_PROXY: 'true' }) })
    after(() => t.close())

    it('takes the visitor IP from X-Forwarded-For when TRUST_PROXY says so', async () => {
      const res = await t.ingest(batch('proxy-geo-1', [{ type: 'CLICK', message: 'a' }]),
        { remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': '8.8.8.8' } })
      const s = json<Detail>(await t.get(`/api/v1/sessions/${json<{ sessionId: string }>(res).sessionId}`)).session
      assert.equal(s.ip, '8.8.8.8')
      assert.equal(s.country, 'US')
    })
  })
}
