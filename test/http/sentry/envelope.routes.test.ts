import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { SENTRY_MAX_ENVELOPE_BYTES, SENTRY_MAX_EVENT_BYTES } from '../../../src/sentry/limits.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { rrwebEvents } from '../../helpers/recording.ts'
import { envelope, errorEvent, postEnvelope } from '../../helpers/sentry.ts'

interface ListItem { id: string; sessionKey: string; user: { id: string } | null; tags: Record<string, string> | null; release: string | null; events: { total: number; errors: number } }
interface Detail { session: ListItem & { recording: { chunks: number } }; events: { id: string; type: string; message: string | null; url?: string; statusCode: number | null; frames: { function: string | null }[] | null }[] }

const hex = (): string => randomBytes(16).toString('hex')
const uaOf = (name: string) => `Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36 ${name}`
const errorEnvelope = (eventId: string, fields: Record<string, unknown> = {}) =>
  envelope({ event_id: eventId, sent_at: new Date().toISOString() }, [[{ type: 'event' }, errorEvent(eventId, fields)]])

for (const engine of testEngines()) {
  describe(`Sentry envelope ingest [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())

    const sessions = async (): Promise<ListItem[]> => json<{ sessions: ListItem[] }>(await t.get('/api/v1/sessions?limit=200')).sessions
    const sessionByKey = async (key: string): Promise<Detail> => {
      const found = (await sessions()).find((s) => s.sessionKey === key)
      assert.ok(found, `a session with key ${key}`)
      return json<Detail>(await t.get(`/api/v1/sessions/${found.id}`))
    }

    it('stores an error as an ERROR with its frames, its breadcrumbs, user, tags and release, and answers its id', async () => {
      const id = hex()
      const res = await postEnvelope(t, errorEnvelope(id, {
        user: { id: 'user-1', email: 'ann@example.com' }, tags: { plan: 'pro' }, release: 'shop@1.2.3',
        request: { url: 'https://shop.example/cart', headers: { 'User-Agent': uaOf('first') } },
      }))
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(json(res), { id, stored: { event: 1 }, dropped: {} })
      assert.equal(res.headers['access-control-allow-origin'], '*')
      const detail = await sessionByKey(`sentry-e-${id}`)
      assert.equal(detail.session.user?.id, 'user-1')
      assert.deepEqual(detail.session.tags, { plan: 'pro' })
      assert.equal(detail.session.release, 'shop@1.2.3')
      const error = detail.events.find((e) => e.type === 'ERROR')
      assert.equal(error?.message, 'TypeError: Cannot read properties of undefined (reading \'total\')')
      assert.deepEqual((error.frames ?? []).map((f) => f.function), ['checkout', 'HTMLButtonElement.onclick'])
      assert.deepEqual(detail.events.map((e) => e.type), ['CLICK', 'ERROR'])
    })

    it('a resent envelope stores nothing twice; the next error of the same user joins the visit, breadcrumbs once', async () => {
      const id = hex()
      const labels = { user: { id: 'user-2' }, request: { url: 'https://shop.example/', headers: { 'User-Agent': uaOf('second') } } }
      const body = errorEnvelope(id, labels)
      for (let i = 0; i < 2; i++) assert.equal((await postEnvelope(t, body)).statusCode, 200)
      const first = await sessionByKey(`sentry-e-${id}`)
      assert.equal(first.session.events.total, 2)
      // The same user from another browser: their visit, found by user id; the click breadcrumb is not stored again.
      const next = hex()
      const crumbs = (JSON.parse(body.toString().split('\n')[2] ?? '{}') as { breadcrumbs: unknown }).breadcrumbs
      const elsewhere = { ...labels, request: { url: 'https://shop.example/', headers: { 'User-Agent': uaOf('other') } } }
      assert.equal((await postEnvelope(t, envelope({ event_id: next }, [[{ type: 'event' }, { ...errorEvent(next, elsewhere), breadcrumbs: crumbs }]]))).statusCode, 200)
      const joined = await sessionByKey(`sentry-e-${id}`)
      assert.deepEqual(joined.events.filter((e) => e.type === 'ERROR').map((e) => e.id).sort(), [id, next].sort())
      assert.ok(!(await sessions()).some((s) => s.sessionKey === `sentry-e-${next}`), 'no visit of its own')
    })

    it('an error without user or replay joins the visit of its IP and User-Agent; another User-Agent or a user opens a new one', async () => {
      const ua = { request: { url: 'https://shop.example/', headers: { 'User-Agent': uaOf('anonymous') } } }
      const [a, b, c, d] = [hex(), hex(), hex(), hex()]
      await postEnvelope(t, errorEnvelope(a, ua))
      await postEnvelope(t, errorEnvelope(b, ua))
      await postEnvelope(t, errorEnvelope(c, { request: { url: 'https://shop.example/', headers: { 'User-Agent': uaOf('someone else') } } }))
      await postEnvelope(t, errorEnvelope(d, { ...ua, user: { id: 'signed-in' } }))
      const keys = (await sessions()).map((s) => s.sessionKey)
      assert.ok(keys.includes(`sentry-e-${a}`) && !keys.includes(`sentry-e-${b}`) && keys.includes(`sentry-e-${c}`))
      assert.ok(keys.includes(`sentry-e-${d}`), 'an identified user\'s error joins only that user\'s visits')
      assert.equal((await sessionByKey(`sentry-e-${a}`)).events.filter((e) => e.type === 'ERROR').length, 2)
    })

    it('a replay buffered until an error (replaysOnErrorSampleRate) is stored as recorded from an error', async () => {
      const replayId = hex()
      const start = Date.now() - 70_000
      const data = Buffer.concat([Buffer.from('{"segment_id":0}\n'), deflateSync(JSON.stringify(rrwebEvents(start, 2)))])
      const res = await postEnvelope(t, envelope({ event_id: replayId }, [
        [{ type: 'replay_event' }, { type: 'replay_event', replay_id: replayId, segment_id: 0, timestamp: start / 1000, replay_type: 'buffer', urls: [] }],
        [{ type: 'replay_recording', length: data.length }, data],
      ]))
      assert.deepEqual(json(res), { id: replayId, stored: { replay_recording: 1 }, dropped: {} })
      const { session } = await sessionByKey(`sentry-r-${replayId}`)
      const recording = json<{ recording: { mode: string; chunks: number } }>(await t.get(`/api/v1/sessions/${session.id}/recording`))
      assert.deepEqual([recording.recording.mode, recording.recording.chunks], ['onError', 1])
    })

    it('a replay becomes the visit: segments as recording chunks in order, its errors and feedback in it', async () => {
      const replayId = hex()
      const start = Date.now() - 10_000
      const segment = (n: number, payload: Buffer) => {
        const data = Buffer.concat([Buffer.from(`{"segment_id":${n}}\n`), payload])
        return envelope({ event_id: replayId, sent_at: new Date().toISOString() }, [
          [{ type: 'replay_event' }, {
            type: 'replay_event', replay_id: replayId, segment_id: n, timestamp: start / 1000, replay_start_timestamp: start / 1000,
            urls: ['https://shop.example/landing'], replay_type: 'session', user: { id: 'user-3' }, release: 'shop@2',
            request: { url: 'https://shop.example/landing', headers: { 'User-Agent': uaOf('replay') } },
          }],
          [{ type: 'replay_recording', length: data.length }, data],
        ])
      }
      // A slow request, as Sentry's replay records it: a performance span with its start and end.
      const slowSpan = { type: 5, timestamp: start + 500, data: { tag: 'performanceSpan', payload: {
        op: 'resource.fetch', description: '/api/search', startTimestamp: (start + 500) / 1000, endTimestamp: (start + 3000) / 1000, data: { method: 'GET', statusCode: 200 },
      } } }
      const events = [...rrwebEvents(start, 2), slowSpan]
      const zlib = deflateSync(JSON.stringify(events))
      const first = await postEnvelope(t, segment(0, zlib), { headers: { 'content-type': undefined } })
      assert.equal(first.statusCode, 200, first.body)
      assert.deepEqual(json(first), { id: replayId, stored: { replay_recording: 1 }, dropped: {} })
      // Plain JSON (no worker), a resend, and a segment that does not inflate: all 200, the bad one dropped.
      assert.equal((await postEnvelope(t, segment(1, Buffer.from(JSON.stringify(rrwebEvents(start + 5000, 1).slice(2)))))).statusCode, 200)
      assert.equal((await postEnvelope(t, segment(0, zlib))).statusCode, 200)
      const bad = await postEnvelope(t, segment(2, Buffer.from([0x78, 0x9c, 1, 2, 3])))
      assert.equal(bad.statusCode, 200)
      assert.deepEqual(json(bad), { id: replayId, stored: {}, dropped: { replay_recording: 1 } })
      // The error and the feedback name the replay: they land in its visit.
      const errorId = hex()
      await postEnvelope(t, errorEnvelope(errorId, { contexts: { replay: { replay_id: replayId } }, tags: { replayId } }))
      const feedbackId = hex()
      const feedback = envelope({ event_id: feedbackId }, [[{ type: 'feedback' }, {
        type: 'feedback', event_id: feedbackId, timestamp: Date.now() / 1000, contexts: { feedback: { message: 'Checkout broke', replay_id: replayId, url: 'https://shop.example/cart' } },
      }]])
      assert.deepEqual(json(await postEnvelope(t, feedback)), { id: feedbackId, stored: { feedback: 1 }, dropped: {} })

      const detail = await sessionByKey(`sentry-r-${replayId}`)
      assert.equal(detail.session.user?.id, 'user-3')
      assert.equal(detail.session.release, 'shop@2')
      assert.equal(detail.session.recording.chunks, 2)
      assert.deepEqual(detail.events.map((e) => e.type).sort(), ['CLICK', 'ERROR', 'SLOW_REQUEST', 'USER_REPORT'])
      assert.equal(detail.events.find((e) => e.type === 'SLOW_REQUEST')?.url, 'https://shop.example/api/search')
      const recording = json<{ recording: { mode: string }; chunks: { id: string; fullSnapshot: boolean }[] }>(await t.get(`/api/v1/sessions/${detail.session.id}/recording`))
      assert.deepEqual(recording.chunks.map((c) => [c.id, c.fullSnapshot]), [[`sentry-${replayId}-000000`, true], [`sentry-${replayId}-000001`, false]])
      assert.equal(recording.recording.mode, 'whole', 'replay_type session: recorded whole')
      const chunk = await t.get(`/api/v1/sessions/${detail.session.id}/recording/chunks/sentry-${replayId}-000000`)
      assert.deepEqual(json(chunk), events)
    })

    it('takes every body form the SDKs send: no Content-Type, the tunnel\'s type, gzip, deflate, br, the store endpoint, no trailing slash', async () => {
      const sent: [string, () => Promise<{ statusCode: number; body: string }>][] = []
      const add = (name: string, send: (id: string) => Promise<{ statusCode: number; body: string }>) => {
        const id = hex()
        sent.push([id, () => send(id)])
        return name
      }
      add('none', (id) => postEnvelope(t, errorEnvelope(id), { headers: { 'content-type': undefined } }))
      add('tunnel', (id) => postEnvelope(t, errorEnvelope(id), { headers: { 'content-type': 'application/x-sentry-envelope' } }))
      add('gzip', (id) => postEnvelope(t, gzipSync(errorEnvelope(id)), { headers: { 'content-encoding': 'gzip' } }))
      add('deflate', (id) => postEnvelope(t, deflateSync(errorEnvelope(id)), { headers: { 'content-encoding': 'deflate' } }))
      add('br', (id) => postEnvelope(t, brotliCompressSync(errorEnvelope(id)), { headers: { 'content-encoding': 'br' } }))
      add('utf-8', (id) => postEnvelope(t, errorEnvelope(id), { headers: { 'content-encoding': 'UTF-8' } }))
      add('slashless', (id) => postEnvelope(t, errorEnvelope(id), { path: `/api/${t.project.sentryProjectId}/envelope` }))
      add('store', (id) => postEnvelope(t, JSON.stringify(errorEvent(id)), { path: `/api/${t.project.sentryProjectId}/store/`, headers: { 'content-type': 'application/json' } }))
      for (const [id, send] of sent) {
        const res = await send()
        assert.equal(res.statusCode, 200, res.body)
        assert.equal((JSON.parse(res.body) as { id: string }).id, id)
      }
    })

    it('authenticates by sentry_key, X-Sentry-Auth or the envelope\'s dsn; 401 without a key, 403 with a wrong one', async () => {
      const { dsnKey, sentryProjectId } = t.project
      const header = await postEnvelope(t, errorEnvelope(hex()), { query: '', headers: { 'x-sentry-auth': `Sentry sentry_version=7, sentry_key=${dsnKey}, sentry_client=raven-node/1` } })
      assert.equal(header.statusCode, 200, header.body)
      const id = hex()
      const tunneled = envelope({ event_id: id, dsn: `https://${dsnKey}@sw.example.com/${sentryProjectId}` }, [[{ type: 'event' }, errorEvent(id)]])
      assert.equal((await postEnvelope(t, tunneled, { query: '' })).statusCode, 200)

      const missing = await postEnvelope(t, errorEnvelope(hex()), { query: '' })
      assert.equal(missing.statusCode, 401)
      assert.equal(json(missing).code, 'missing_sentry_key')
      assert.equal(missing.headers['access-control-allow-origin'], '*', 'CORS on errors too, or the SDK sees a network error')
      assert.match(String(missing.headers['x-sentry-error']), /sentry_key/)
      const other = await t.newProject('Other')
      for (const res of [
        await postEnvelope(t, errorEnvelope(hex()), { query: 'sentry_key=0123456789abcdef0123456789abcdef' }),
        await postEnvelope(t, errorEnvelope(hex()), { query: `sentry_key=${other.dsnKey}` }),
        await postEnvelope(t, errorEnvelope(hex()), { query: `sentry_key=${t.project.ingestKey}` }),
        await postEnvelope(t, envelope({ dsn: `https://${dsnKey}@h/${other.sentryProjectId}` }, [[{ type: 'event' }, errorEvent(hex())]]), { query: '' }),
      ]) {
        assert.equal(res.statusCode, 403, res.body)
        assert.equal(json(res).code, 'invalid_sentry_key')
      }
      assert.equal((await postEnvelope(t, errorEnvelope(hex()), { path: '/api/v1/envelope/' })).statusCode, 404)
    })

    it('answers the CORS preflight of a browser SDK', async () => {
      const res = await t.app.inject({ method: 'OPTIONS', url: `/api/${t.project.sentryProjectId}/envelope/`, headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } })
      assert.equal(res.statusCode, 204)
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.match(String(res.headers['access-control-allow-headers']), /x-sentry-auth/)
      assert.match(String(res.headers['access-control-expose-headers']), /x-sentry-rate-limits/)
    })

    it('accepts and counts what it does not keep, and keeps what a truncated envelope held before the cut', async () => {
      const id = hex()
      const res = await postEnvelope(t, envelope({ event_id: id }, [
        [{ type: 'session' }, { sid: hex(), status: 'ok' }], [{ type: 'client_report' }, { discarded_events: [] }],
        [{ type: 'transaction' }, { type: 'transaction' }], [{ type: 'future_thing', length: 3 }, 'abc'],
        [{ type: 'event' }, errorEvent(id)], [{ type: 'attachment', length: 4, filename: 'screenshot.png' }, 'PNG!'],
      ]))
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(json(res), { id, stored: { event: 1 }, dropped: { session: 1, client_report: 1, transaction: 1, future_thing: 1, attachment: 1 } })
      const cutId = hex()
      const alone = { request: { url: 'https://shop.example/', headers: { 'User-Agent': uaOf('truncated') } } }
      const whole = envelope({ event_id: cutId }, [[{ type: 'event' }, errorEvent(cutId, alone)], [{ type: 'replay_recording', length: 1000 }, 'short']])
      const cut = await postEnvelope(t, whole)
      assert.equal(cut.statusCode, 200, cut.body)
      assert.match(json<{ stopped: string }>(cut).stopped, /item 1 \(replay_recording\) is truncated/)
      assert.match(String(cut.headers['x-sentry-error']), /truncated/)
      assert.ok((await sessions()).some((s) => s.sessionKey === `sentry-e-${cutId}`))
    })

    it('refuses what it cannot read or hold, storing nothing of it: 400 and 413', async () => {
      const before = (await sessions()).length
      const cases: [Buffer | string, Record<string, string>, number, string][] = [
        ['not an envelope', {}, 400, 'invalid_envelope'],
        [envelope({}, [[{ type: 'event' }, errorEvent(hex())], [{ type: 'event' }, '{not json']]), {}, 400, 'invalid_envelope'],
        [Buffer.from('not gzip'), { 'content-encoding': 'gzip' }, 400, 'invalid_envelope'],
        [errorEnvelope(hex()), { 'content-encoding': 'zstd' }, 400, 'invalid_envelope'],
        [gzipSync(Buffer.alloc(SENTRY_MAX_ENVELOPE_BYTES + 1, 0x20)), { 'content-encoding': 'gzip' }, 413, 'payload_too_large'],
        [envelope({}, [[{ type: 'event' }, errorEvent(hex())], [{ type: 'event' }, { message: 'x'.repeat(SENTRY_MAX_EVENT_BYTES) }]]), {}, 413, 'payload_too_large'],
      ]
      for (const [body, headers, status, code] of cases) {
        const res = await postEnvelope(t, body, { headers })
        assert.equal(res.statusCode, status, res.body)
        assert.equal(json(res).code, code)
      }
      assert.equal((await sessions()).length, before)
    })

    it('never answers a 5xx, whatever the body', async () => {
      const valid = errorEnvelope(hex())
      for (let i = 0; i < 60; i++) {
        const body = i % 3 === 0 ? randomBytes(1 + (i * 37) % 500)
          : i % 3 === 1 ? Buffer.concat([valid.subarray(0, (i * 53) % valid.length), randomBytes(i % 20)])
            : Buffer.from(`{}\n{"type":"${['event', 'feedback', 'replay_event', 'replay_recording', 'user_report'][i % 5]}"}\n${JSON.stringify([null, 1, 'x', { exception: 5 }, { breadcrumbs: 'x' }, { user: [1] }, { contexts: { feedback: 7 } }][i % 7])}`)
        const res = await postEnvelope(t, body, { headers: i % 4 === 0 ? { 'content-encoding': 'gzip' } : {} })
        assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`)
      }
    })
  })
}
