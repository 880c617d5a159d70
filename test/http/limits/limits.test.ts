import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../../src/app.ts'
import { loadConfig } from '../../../src/config.ts'
import { quotaUsage } from '../../../src/limits/quota.ts'
import { updateProject, type ProjectWithKeys } from '../../../src/projects/service.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'
import { envelope, errorEvent, postEnvelope } from '../../helpers/sentry.ts'

const hex = (): string => randomBytes(16).toString('hex')
const errorEnvelope = () => {
  const id = hex()
  return envelope({ event_id: id, sent_at: new Date().toISOString() }, [[{ type: 'event' }, errorEvent(id)]])
}
const events = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'CLICK', message: `click ${i}` }))
/** The answers' statuses in order: requests sent at once are counted in whatever order they are read, so not theirs. */
const statuses = (answers: readonly LightMyRequestResponse[]) => answers.map((a) => a.statusCode).sort((a, b) => a - b)
/** Seconds to the next UTC midnight, as the quota's Retry-After says. */
const toMidnight = () => (Math.floor(Date.now() / DAY_MS) + 1) * DAY_MS / 1000 - Date.now() / 1000

for (const engine of testEngines()) {
  describe(`ingest rate limits and quotas [${engine}]`, () => {
    let t: TestApp
    // The server's rate: 1 request a second, a burst of 2, so a test sees the limit in a few requests.
    before(async () => { t = await startTestApp(engine, { INGEST_RATE_LIMIT: '1' }) })
    after(() => t.close())

    const ingestAs = (p: ProjectWithKeys, body: unknown) => t.ingest(body, { headers: { 'x-ingest-key': p.ingestKey } })
    const withLimits = async (limits: { ingestRateLimit?: number | null; dailyEventQuota?: number | null }) => {
      const p = await t.newProject(`limits ${hex().slice(0, 6)}`)
      await updateProject(t.app.db, p.id, limits)
      return p
    }

    it('answers 429 rate_limited with Retry-After past the burst of INGEST_RATE_LIMIT, per project, on every ingest route', async () => {
      const p = await t.newProject('rate')
      const first = await Promise.all([1, 2].map((i) => ingestAs(p, batch(`session-rate-${i}`, events(1)))))
      assert.deepEqual(statuses(first), [200, 200], 'a burst of twice the rate')
      const over = await ingestAs(p, batch('session-rate-3', events(1)))
      assert.equal(over.statusCode, 429, over.body)
      assert.equal(json(over).code, 'rate_limited')
      assert.match(String(json(over).message), new RegExp(`Project ${p.id} may send 1 ingest requests a second \\(bursts of 2\\): the server's INGEST_RATE_LIMIT`))
      assert.equal(over.headers['retry-after'], '1')
      // The same bucket whichever way the key comes: a beacon's body, the recording route, the DSN.
      const beacon = await t.app.inject({
        method: 'POST', url: '/ingest/v1/batch', headers: { 'content-type': 'text/plain' }, payload: JSON.stringify({ key: p.ingestKey, ...batch('session-rate-4', events(1)) }),
      })
      assert.equal(beacon.statusCode, 429)
      const chunk = await t.app.inject({ method: 'POST', url: `/ingest/v1/recording?key=${p.ingestKey}&sessionKey=session-rate-5&chunk=c1`, payload: Buffer.from('[]') })
      assert.equal(chunk.statusCode, 429)
      const sentry = await postEnvelope(t, errorEnvelope(), { project: p })
      assert.equal(sentry.statusCode, 429)
      assert.equal(sentry.headers['x-sentry-rate-limits'], '1::project:rate_limited')
      assert.equal(sentry.headers['retry-after'], '1')
      assert.equal(json(sentry).code, 'rate_limited')
      // A key in a header or the query is counted before the body is read: a refusal costs no parsing, whatever the body.
      const unread = await t.app.inject({ method: 'POST', url: '/ingest/v1/batch', headers: { 'x-ingest-key': p.ingestKey, 'content-type': 'application/json' }, payload: '{not json' })
      assert.equal(unread.statusCode, 429, unread.body)
      const unreadEnvelope = await postEnvelope(t, 'not an envelope', { project: p, headers: { 'content-encoding': 'gzip' } })
      assert.equal(unreadEnvelope.statusCode, 429, unreadEnvelope.body)
      assert.equal((await ingestAs(t.project, batch('session-rate-other', events(1)))).statusCode, 200, 'another project has its own bucket')
      // The rule is a token a second: one has come back a second later.
      await new Promise((resolve) => setTimeout(resolve, 1100))
      assert.equal((await ingestAs(p, batch('session-rate-6', events(1)))).statusCode, 200, 'a token a second')
    })

    it('takes a project\'s own rate over the server\'s; 0 is no limit', async () => {
      const own = await withLimits({ ingestRateLimit: 5 })
      // A burst of 10, and 5 more a second while the requests are answered (a busy machine takes longer over them).
      const started = Date.now()
      const sent = await Promise.all(Array.from({ length: 20 }, (_, i) => ingestAs(own, batch(`session-own-${i}`, events(1)))))
      const refilled = Math.floor(((Date.now() - started) / 1000) * 5)
      const admitted = statuses(sent).filter((s) => s === 200).length
      assert.ok(admitted >= 10 && admitted <= 10 + refilled, `${admitted} of 20 admitted, ${refilled} refilled meanwhile`)
      assert.match(String(json(sent.find((r) => r.statusCode === 429) ?? sent[0] as LightMyRequestResponse).message), /may send 5 ingest requests a second \(bursts of 10\): its own rate limit/)
      const unlimited = await withLimits({ ingestRateLimit: 0 })
      const many = await Promise.all(Array.from({ length: 20 }, (_, i) => ingestAs(unlimited, batch(`session-free-${i}`, events(1)))))
      assert.ok(statuses(many).every((s) => s === 200))
    })

    it('does not count a request without a valid key against the project it names', async () => {
      const p = await t.newProject('victim')
      for (let i = 0; i < 5; i++) {
        assert.equal((await postEnvelope(t, errorEnvelope(), { project: { sentryProjectId: p.sentryProjectId, dsnKey: hex() } })).statusCode, 403)
        assert.equal((await t.ingest(batch(`session-nokey-${i}`, events(1)), { headers: { 'x-ingest-key': p.apiKey } })).statusCode, 401)
      }
      const own = await Promise.all([1, 2, 3].map((i) => ingestAs(p, batch(`session-victim-${i}`, events(1)))))
      assert.deepEqual(statuses(own), [200, 200, 429], 'the whole burst is the project\'s own, and no more')
    })

    it('INGEST_RATE_LIMIT=0 turns the limit off, but for a project that sets its own', async () => {
      const off = await startTestApp(engine, { INGEST_RATE_LIMIT: '0' })
      try {
        const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => off.ingest(batch(`session-off-${i}`, events(1)))))
        assert.ok(statuses(answers).every((s) => s === 200))
        const own = await off.newProject('own')
        await updateProject(off.app.db, own.id, { ingestRateLimit: 1 })
        const limited = await Promise.all([1, 2, 3].map((i) => off.ingest(batch(`session-off-own-${i}`, events(1)), { headers: { 'x-ingest-key': own.ingestKey } })))
        assert.deepEqual(statuses(limited), [200, 200, 429])
      } finally {
        await off.close()
      }
    })

    it('refuses every request once the daily quota is spent, until the next UTC midnight; the crossing request is taken whole', async () => {
      const p = await withLimits({ dailyEventQuota: 5, ingestRateLimit: 0 })
      assert.equal((await ingestAs(p, batch('session-quota-1', events(3)))).statusCode, 200)
      const crossing = await ingestAs(p, batch('session-quota-1', events(3)))
      assert.equal(crossing.statusCode, 200, crossing.body)
      assert.equal(json(crossing).accepted, 3)
      assert.equal(await quotaUsage(t.app.db, p.id, Date.now()), 6)

      const spent = await ingestAs(p, batch('session-quota-2', events(1)))
      assert.equal(spent.statusCode, 429)
      assert.equal(json(spent).code, 'rate_limited')
      assert.match(String(json(spent).message), new RegExp(`Project ${p.id} has spent its daily quota of 5 events for \\d{4}-\\d{2}-\\d{2} \\(UTC\\)`))
      assert.ok(Math.abs(Number(spent.headers['retry-after']) - toMidnight()) <= 2, `Retry-After ${String(spent.headers['retry-after'])} is the time to midnight`)
      const chunk = await t.app.inject({ method: 'POST', url: `/ingest/v1/recording?key=${p.ingestKey}&sessionKey=session-quota-1&chunk=c1`, payload: Buffer.from('[]') })
      assert.equal(chunk.statusCode, 429, 'recordings count no events, but stop with the quota')
      const sentry = await postEnvelope(t, errorEnvelope(), { project: p })
      assert.equal(sentry.statusCode, 429)
      assert.match(String(sentry.headers['x-sentry-rate-limits']), /^\d+::project:quota_exceeded$/)
      assert.ok(Math.abs(Number(sentry.headers['retry-after']) - toMidnight()) <= 2)
      assert.equal(await quotaUsage(t.app.db, p.id, Date.now()), 6, 'refused requests take nothing')
      const stored = await t.app.db.selectFrom('events').select((eb) => eb.fn.countAll<number | string>().as('n')).where('project_id', '=', p.id).executeTakeFirstOrThrow()
      assert.equal(Number(stored.n), 6, 'nothing of a refused request is stored')

      await updateProject(t.app.db, p.id, { dailyEventQuota: 100 })
      assert.equal((await postEnvelope(t, errorEnvelope(), { project: p })).statusCode, 200, 'a raised quota takes effect at once')
      assert.equal(await quotaUsage(t.app.db, p.id, Date.now()), 7, 'a Sentry error counts one event, breadcrumbs and all')
    })

    it('gives back the quota of a request that stored nothing', async () => {
      const p = await withLimits({ dailyEventQuota: 100, ingestRateLimit: 0 })
      const bad = await ingestAs(p, batch('session-quota-bad', [...events(2), { type: 'CLICK', message: 'x', createdAt: '2026-02-30T00:00:00Z' }]))
      assert.equal(bad.statusCode, 400, bad.body)
      assert.equal(await quotaUsage(t.app.db, p.id, Date.now()), 0)
    })

    it('holds the quota across processes sharing the database: no request gets in once it is spent', async () => {
      const p = await withLimits({ dailyEventQuota: 10, ingestRateLimit: 0 })
      const second = await buildApp({ config: loadConfig({ DATABASE_URL: t.databaseUrl, RETENTION_SWEEP_SECONDS: '0', INGEST_RATE_LIMIT: '0' }) })
      try {
        const apps = [t.app, second]
        const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => (apps[i % 2] ?? t.app).inject({
          method: 'POST', url: '/ingest/v1/batch', headers: { 'x-ingest-key': p.ingestKey }, payload: batch(`session-fleet-${i}`, events(3)),
        })))
        // 0, 3, 6 and 9 events are below the quota of 10 when their request is counted; 12 is not.
        assert.equal(statuses(answers).filter((s) => s === 200).length, 4, statuses(answers).join(','))
        assert.ok(statuses(answers).every((s) => s === 200 || s === 429))
        assert.equal(await quotaUsage(t.app.db, p.id, Date.now()), 12)
      } finally {
        await second.close()
      }
    })
  })
}
