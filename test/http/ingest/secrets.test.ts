import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { deflateSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'
import { chunkUpload, rrwebEvents } from '../../helpers/recording.ts'
import { envelope, errorEvent, postEnvelope } from '../../helpers/sentry.ts'

/** The secret every form below carries, and the Basic credentials made of it. */
const SECRET = 'hunter2SECRETvalue'
const BASIC = Buffer.from(`ann:${SECRET}`).toString('base64')

/** Every form a secret arrives in (issue 38 §4), as our SDK's batch carries it. */
const batchEvents = [
  { type: 'NAVIGATION', url: `https://shop.example/cb?token=${SECRET}&code=${SECRET}#access_token=${SECRET}&sig=${SECRET}` },
  { type: 'ERROR', message: `Error: Authorization: Bearer ${SECRET}`, stack: `Error: login(password: "${SECRET}") failed\n    at x (https://shop.example/app.js:1:2)` },
  {
    type: 'HTTP_ERROR', method: 'POST', statusCode: 401, url: `https://api.example/v1?api_key=${SECRET}&password=${SECRET}&secret=${SECRET}`,
    reqBody: JSON.stringify({
      query: `mutation { login(email: "ann@example.com", password: "${SECRET}") { ok } }`, jwt: SECRET, sessionid: SECRET, session: SECRET,
      refresh: SECRET, refresh_token: SECRET, cookie: SECRET, 'set-cookie': SECRET, authorization: `Basic ${BASIC}`,
    }),
    resBody: `{"error":"expired","detail":"Authorization: Bearer ${SECRET}"}`, fingerprint: `sig=${SECRET}`,
  },
  { type: 'CONSOLE_ERROR', message: `401 with Basic ${BASIC}` },
  { type: 'USER_REPORT', message: `the link https://shop.example/reset#token=${SECRET} does not work` },
]

/** The same forms in a Sentry event: request, extra, the exception, breadcrumbs' data and messages. */
const sentryFields = (now: number) => ({
  request: {
    url: `https://shop.example/cb?code=${SECRET}#access_token=${SECRET}`, query_string: `token=${SECRET}`, cookies: { session: SECRET },
    headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36', Authorization: `Bearer ${SECRET}`, Cookie: `sid=${SECRET}` },
  },
  extra: { password: SECRET, jwt: SECRET },
  exception: { values: [{ type: 'Error', value: `login(password: "${SECRET}") answered 401 for Bearer ${SECRET}` }] },
  breadcrumbs: { values: [
    { timestamp: now - 4, category: 'navigation', data: { from: '/', to: `/reset?token=${SECRET}` } },
    { timestamp: now - 3, category: 'fetch', type: 'http', data: { url: `https://api.example/x?api_key=${SECRET}`, method: 'POST', status_code: 401 } },
    { timestamp: now - 2, category: 'console', level: 'error', message: `{"refresh_token":"${SECRET}","sessionid":"${SECRET}"}` },
    { timestamp: now - 1, category: 'console', level: 'error', data: { arguments: ['login failed', { cookie: SECRET, 'set-cookie': SECRET }] } },
  ] },
})

/** Every row of every table, as JSON: what the service keeps, wherever it keeps it. */
async function everythingStored(t: TestApp): Promise<string> {
  const tables = await t.app.db.introspection.getTables()
  const rows = await Promise.all(tables.map(async (table) => [table.name, (await sql`select * from ${sql.table(table.name)}`.execute(t.app.db)).rows]))
  return JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value))
}

for (const engine of testEngines()) {
  describe(`secrets never stored [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())

    const assertNoSecret = (what: string, text: string) => {
      assert.ok(!text.includes(SECRET) && !text.includes(BASIC), `${what} holds the secret: ${text.slice(Math.max(0, text.indexOf(SECRET) - 200), text.indexOf(SECRET) + 100)}`)
    }

    it('scrubs each form from a batch and from a Sentry envelope: the API and the database hold none of them', async () => {
      const res = await t.ingest(batch('secrets-visit', batchEvents, { page: `https://shop.example/welcome?from=mail#access_token=${SECRET}` }))
      assert.equal(res.statusCode, 200, res.body)
      const now = Date.now() / 1000
      const id = randomBytes(16).toString('hex')
      const sent = await postEnvelope(t, envelope({ event_id: id, sent_at: new Date().toISOString() }, [[{ type: 'event' }, errorEvent(id, sentryFields(now))]]))
      assert.equal(sent.statusCode, 200, sent.body)
      assert.deepEqual(json(sent), { id, stored: { event: 1 }, dropped: {} })

      const list = json<{ sessions: { id: string }[] }>(await t.get('/api/v1/sessions?limit=10'))
      assert.equal(list.sessions.length, 2)
      assertNoSecret('the sessions list', JSON.stringify(list))
      for (const s of list.sessions) {
        const detail = (await t.get(`/api/v1/sessions/${s.id}`)).body
        assertNoSecret(`session ${s.id}`, detail)
        assert.match(detail, /\*\*\*/, 'masked, not dropped')
      }
      assertNoSecret('the issues', (await t.get('/api/v1/issues')).body)
      assertNoSecret('the database', await everythingStored(t))
    })

    it('scrubs a recording\'s page URLs and a Sentry replay\'s breadcrumbs and spans, chunk by chunk', async () => {
      const start = Date.now() - 10_000
      const leaky = (events: Record<string, unknown>[]) => [
        { ...events[0], data: { href: `https://shop.example/cb#access_token=${SECRET}&state=1`, width: 1280, height: 800 } },
        ...events.slice(1),
        { type: 5, timestamp: start + 100, data: { tag: 'breadcrumb', payload: { category: 'console', message: `Authorization: Bearer ${SECRET}` } } },
        { type: 5, timestamp: start + 200, data: { tag: 'performanceSpan', payload: {
          op: 'resource.fetch', description: `https://api.example/x?api_key=${SECRET}`, startTimestamp: (start + 200) / 1000, endTimestamp: (start + 3200) / 1000,
        } } },
      ]
      const ours = await t.ingest(batch('recorded-secrets', [], { recording: [chunkUpload('c0', leaky(rrwebEvents(start, 1)))] }))
      assert.equal(ours.statusCode, 200, ours.body)
      const replayId = randomBytes(16).toString('hex')
      const data = Buffer.concat([Buffer.from('{"segment_id":0}\n'), deflateSync(JSON.stringify(leaky(rrwebEvents(start, 1))))])
      const sentry = await postEnvelope(t, envelope({ event_id: replayId, sent_at: new Date().toISOString() }, [
        [{ type: 'replay_event' }, { type: 'replay_event', replay_id: replayId, segment_id: 0, timestamp: start / 1000, replay_start_timestamp: start / 1000 }],
        [{ type: 'replay_recording', length: data.length }, data],
      ]), { headers: { 'content-type': undefined } })
      assert.equal(sentry.statusCode, 200, sentry.body)
      const list = json<{ sessions: { id: string }[] }>(await t.get('/api/v1/sessions?recording=true&limit=10'))
      assert.equal(list.sessions.length, 2)
      for (const s of list.sessions) {
        const chunks = json<{ chunks: { id: string }[] }>(await t.get(`/api/v1/sessions/${s.id}/recording`)).chunks
        assert.equal(chunks.length, 1)
        const chunk = (await t.get(`/api/v1/sessions/${s.id}/recording/chunks/${chunks[0]?.id ?? ''}`)).body
        assertNoSecret(`the chunk of ${s.id}`, chunk)
        assert.match(chunk, /access_token=\*\*\*&state=1/, 'the URL kept, its token masked')
        assert.match(chunk, /"type":2/, 'the DOM kept')
      }
    })
  })
}
