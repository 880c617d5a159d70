import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'
import { serializeDetail } from '../../helpers/serializers.ts'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

interface EventOut {
  id: string
  type: string
  createdAt: string
  url?: string
  method?: string
  message: string | null
  statusCode: number | null
  [k: string]: unknown
}
interface Detail {
  project: Record<string, string>
  session: Record<string, unknown> & { events: Record<string, number>; recording: Record<string, unknown> }
  events: EventOut[]
}

for (const engine of testEngines()) {
  describe(`getSession [${engine}]`, () => {
    let t: TestApp
    let id: string
    const t0 = Date.now() - 60_000
    before(async () => {
      t = await startTestApp(engine)
      const first = batch('detail-session-1', [
        { type: 'NAVIGATION', url: 'https://shop.example/?utm_source=news&gclid=g1', createdAt: t0 },
        { type: 'CLICK', message: 'button#buy', createdAt: t0 + 3000 },
        { type: 'HTTP_ERROR', url: 'https://shop.example/api', method: 'post', statusCode: 502, durationMs: 12.5,
          reqBody: '{"a":1}', resBody: 'Bad gateway', createdAt: t0 + 2000 },
        { type: 'ERROR', message: 'TypeError: boom', stack: 'at x (app.js:1:1)', createdAt: t0 + 2000 },
      ])
      const res = await t.ingest(first, { remoteAddress: '8.8.8.8', headers: { 'user-agent': 'Mozilla/5.0 (X11) Test' } })
      id = json<{ sessionId: string }>(res).sessionId
      // A later batch with events at the same instant as earlier ones: ties keep the order received.
      await t.ingest(batch('detail-session-1', [
        { type: 'SLOW_REQUEST', url: 'https://cdn.example/a.js', durationMs: 3100, createdAt: t0 + 2000 },
        { type: 'INPUT', message: 'input[name=email]', createdAt: t0 + 4000 },
        { type: 'USER_REPORT', message: 'Checkout is broken', createdAt: t0 + 5000 },
        { type: 'CONSOLE_ERROR', message: 'console says no', createdAt: t0 + 6000 },
      ]))
    })
    after(() => t.close())

    it('returns project, the session with every list field plus recording, and its events', async () => {
      const res = await t.get(`/api/v1/sessions/${id}`)
      assert.equal(res.statusCode, 200)
      const body = json<Detail>(res)
      assert.deepEqual(Object.keys(body), ['project', 'session', 'events'])
      assert.deepEqual(body.project, { id: t.project.id, name: 'Shop', domain: 'shop.example' })
      const s = body.session
      assert.deepEqual(Object.keys(s).sort(),
        ['browser', 'country', 'entryUrl', 'environment', 'events', 'id', 'ip', 'lastSeenAt', 'os', 'recording', 'release', 'sessionKey',
          'startedAt', 'tags', 'user', 'userAgent', 'utm'])
      assert.equal(s.id, id)
      assert.equal(s.sessionKey, 'detail-session-1')
      assert.equal(s.startedAt, new Date(t0).toISOString())
      assert.equal(s.lastSeenAt, new Date(t0 + 6000).toISOString())
      assert.equal(s.ip, '8.8.8.8')
      assert.equal(s.country, 'US')
      assert.equal(s.userAgent, 'Mozilla/5.0 (X11) Test')
      assert.deepEqual(s.utm, { utm_source: 'news', gclid: 'g1' })
      assert.deepEqual(s.events, { total: 8, errors: 2, slow: 1 })
      assert.deepEqual(s.recording, { available: false, chunks: 0 })
    })

    it('lists the same session fields as getSession', async () => {
      const list = json<{ sessions: Record<string, unknown>[] }>(await t.get('/api/v1/sessions')).sessions
      const detail = json<Detail>(await t.get(`/api/v1/sessions/${id}`)).session
      const { recording: _recording, ...rest } = detail
      assert.deepEqual(list.find((s) => s.id === id), rest)
    })

    it('orders events by createdAt, ties in the order received', async () => {
      const events = json<Detail>(await t.get(`/api/v1/sessions/${id}`)).events
      assert.deepEqual(events.map((e) => e.type),
        ['NAVIGATION', 'HTTP_ERROR', 'ERROR', 'SLOW_REQUEST', 'CLICK', 'INPUT', 'USER_REPORT', 'CONSOLE_ERROR'])
      for (const e of events) assert.match(e.createdAt, ISO_MS)
    })

    it('serves every event field: url and method absent when not applicable, the rest null', async () => {
      const events = json<Detail>(await t.get(`/api/v1/sessions/${id}`)).events
      const http = events.find((e) => e.type === 'HTTP_ERROR')
      assert.deepEqual(http, {
        id: http?.id, type: 'HTTP_ERROR', createdAt: new Date(t0 + 2000).toISOString(),
        url: 'https://shop.example/api', method: 'POST', message: null, stack: null, statusCode: 502, durationMs: 12.5,
        reqBody: '{"a":1}', resBody: 'Bad gateway', fingerprint: null, issueId: http?.issueId, frames: null,
      })
      assert.match(String(http.issueId), /^[A-Za-z0-9_-]{12}$/, 'a failed request belongs to an issue')
      const click = events.find((e) => e.type === 'CLICK')
      assert.deepEqual(click, {
        id: click?.id, type: 'CLICK', createdAt: new Date(t0 + 3000).toISOString(), message: 'button#buy',
        stack: null, statusCode: null, durationMs: null, reqBody: null, resBody: null, fingerprint: null, issueId: null, frames: null,
      })
      const error = events.find((e) => e.type === 'ERROR')
      assert.equal(error?.stack, 'at x (app.js:1:1)')
      assert.deepEqual(error.frames, [{
        function: 'x', file: 'app.js', line: 1, column: 1, mapped: false, inApp: true, context: null,
      }], 'a stack with no map for its script: its frames as printed')
      const slow = events.find((e) => e.type === 'SLOW_REQUEST')
      assert.ok(slow && !('method' in slow), 'a resource has no method')
      assert.equal(slow.durationMs, 3100)
      assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'event ids are unique')
    })

    it('writes every event as the response schema serializes it: hostile text, fractions, frames, a repeated stack, absent url and method', async () => {
      // The answer must be the bytes the schema's serializer writes for the values stored, frames resolved as they are read.
      const hostile = `${Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('')}"\\/\u2028é😀</script>,"frames":null`
      const res = await t.ingest(batch('detail-hostile-1', [
        { type: 'HTTP_ERROR', url: `https://shop.example/${hostile}`, method: 'PATCH', statusCode: 500, durationMs: 0.1 + 0.2,
          reqBody: hostile, resBody: hostile, fingerprint: hostile, createdAt: t0 },
        { type: 'SLOW_REQUEST', url: 'https://cdn.example/a.js', durationMs: 1 / 3, message: hostile, createdAt: t0 + 1 },
        { type: 'SLOW_REQUEST', url: 'https://cdn.example/b.js', durationMs: 2_678_400_000, createdAt: t0 + 2 },
        { type: 'ERROR', message: hostile, stack: `Error: ${hostile}\n    at pay (https://shop.example/app.js:1:99)`, createdAt: t0 + 3 },
        { type: 'CLICK', message: hostile, createdAt: t0 + 4 },
        // The same stack again: written once, put in both events.
        { type: 'ERROR', message: 'again', stack: `Error: ${hostile}\n    at pay (https://shop.example/app.js:1:99)`, createdAt: t0 + 5 },
      ]))
      const detail = await t.get(`/api/v1/sessions/${json<{ sessionId: string }>(res).sessionId}`)
      assert.equal(detail.statusCode, 200)
      const body = json<Detail>(detail)
      assert.equal(detail.body, serializeDetail(body), 'the serializer\'s bytes')
      assert.deepEqual(body.events.map((e) => [e.type, e.url ?? null, e.method ?? null, e.durationMs, e.message]), [
        ['HTTP_ERROR', `https://shop.example/${hostile}`, 'PATCH', 0.1 + 0.2, null],
        ['SLOW_REQUEST', 'https://cdn.example/a.js', null, 1 / 3, hostile],
        ['SLOW_REQUEST', 'https://cdn.example/b.js', null, 2_678_400_000, null],
        ['ERROR', null, null, null, hostile],
        ['CLICK', null, null, null, hostile],
        ['ERROR', null, null, null, 'again'],
      ])
      assert.deepEqual(body.events.map((e) => Array.isArray(e.frames) ? e.frames.length : e.frames), [null, null, null, 1, null, 1])
      assert.equal(body.events[5]?.stack, body.events[3]?.stack, 'the repeated stack in full')
    })

    it('answers 404 with a JSON error for an unknown id', async () => {
      const res = await t.get('/api/v1/sessions/does-not-exist')
      assert.equal(res.statusCode, 404)
      assert.deepEqual(json(res), {
        statusCode: 404, error: 'Not Found', code: 'not_found', message: 'Session "does-not-exist" not found',
      })
    })

    it('answers 404 for an id holding a NUL byte, which no stored id can hold', async () => {
      const res = await t.get('/api/v1/sessions/abc%00')
      assert.equal(res.statusCode, 404, res.body)
      assert.equal(json(res).code, 'not_found')
    })

    it('checks the key first, then answers 404 for an id longer than any that exists', async () => {
      for (const length of [101, 200, 201, 5000]) {
        const url = `/api/v1/sessions/${'a'.repeat(length)}`
        assert.equal((await t.app.inject({ url })).statusCode, 401, `${length} without a key`)
        const res = await t.get(url)
        assert.equal(res.statusCode, 404, `${length}: ${res.body}`)
        assert.equal(json(res).code, 'not_found')
      }
    })

    it('answers 404 for a session of another project, exactly as for an unknown id', async () => {
      const other = await t.newProject('Other')
      const res = await t.get(`/api/v1/sessions/${id}`, other.apiKey)
      assert.equal(res.statusCode, 404)
      assert.equal(json(res).code, 'not_found')
      const list = json<{ total: number; sessions: unknown[]; project: { id: string } }>(await t.get('/api/v1/sessions', other.apiKey))
      assert.equal(list.total, 0)
      assert.deepEqual(list.sessions, [])
      assert.equal(list.project.id, other.id)
    })

    it('records ip, country, userAgent and utm as null when unknown', async () => {
      const res = await t.ingest(batch('no-visitor-data', [{ type: 'ERROR', message: 'x' }]),
        { remoteAddress: '127.0.0.1', headers: { 'user-agent': '' } })
      const sid = json<{ sessionId: string }>(res).sessionId
      const s = json<Detail>(await t.get(`/api/v1/sessions/${sid}`)).session
      assert.equal(s.country, null)
      assert.equal(s.userAgent, null)
      assert.equal(s.utm, null)
    })
  })
}

for (const engine of testEngines()) {
  describe(`getSession of a large session, streamed [${engine}]`, () => {
    let t: TestApp
    let bigId: string
    let smallId: string
    const t0 = Date.now() - 3_600_000
    before(async () => {
      t = await startTestApp(engine)
      // 2,600 events over six batches, with equal times across batches to exercise the tie order.
      for (let b = 0; b < 6; b++) {
        const events = Array.from({ length: b === 5 ? 100 : 500 }, (_, i) => ({
          type: i % 50 === 0 ? 'ERROR' : 'CLICK', message: `b${b} e${i} "quoted" \u2028 ünïcode`, stack: i % 50 === 0 ? 'at x (a.js:1:1)' : null,
          createdAt: t0 + (i % 300) * 1000,
        }))
        const res = await t.ingest(batch('streamed-session-1', events))
        bigId = json<{ sessionId: string }>(res).sessionId
      }
      smallId = json<{ sessionId: string }>(await t.ingest(batch('small-session-1', [
        { type: 'HTTP_ERROR', url: 'https://x/', method: 'GET', statusCode: 500, durationMs: 1.5, reqBody: 'a', resBody: 'b' },
        { type: 'CLICK', message: 'x' },
      ]))).sessionId
    })
    after(() => t.close())

    it('streams every event in order with the counters of the session', async () => {
      const res = await t.get(`/api/v1/sessions/${bigId}`)
      assert.equal(res.statusCode, 200)
      assert.match(String(res.headers['content-type']), /^application\/json/)
      const body = JSON.parse(res.body) as Detail
      assert.equal(body.events.length, 2600)
      assert.equal(body.session.events.total, 2600)
      const keys = body.events.map((e) => [Date.parse(e.createdAt), e.id] as const)
      for (let i = 1; i < keys.length; i++) assert.ok((keys[i - 1]?.[0] ?? 0) <= (keys[i]?.[0] ?? 0), 'ordered by createdAt')
      assert.equal(res.body, JSON.stringify(body), 'valid, canonical JSON')
    })

    it('streams the same bytes the whole answer has', async () => {
      const { getSession } = await import('../../../src/sessions/service.ts')
      const { getProject } = await import('../../../src/projects/service.ts')
      const project = await getProject(t.app.db, t.project.id)
      const whole = await t.get(`/api/v1/sessions/${smallId}`)
      const streamed = await getSession(t.app.db, t.app.sourceMaps, project, smallId, { streamAbove: 0 })
      assert.ok(streamed instanceof Readable, 'streamAbove 0 streams')
      let text = ''
      for await (const chunk of streamed) text += String(chunk)
      assert.equal(text, whole.body)
    })
  })
}
