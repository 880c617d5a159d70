import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { SWEEP_BATCH } from '../../../src/visits/limits.ts'
import { insertWebhook } from '../../../src/alerts/store.ts'
import { sweep } from '../../../src/retention/service.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { enqueueCommitted, issueAlert, storedDeliveries } from '../../helpers/alerts.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'
import { eventually } from '../../helpers/wait.ts'
import { newWebhookSecret } from '../../../src/alerts/sign.ts'

const daysAgo = (n: number) => Date.now() - n * DAY_MS

for (const engine of testEngines()) {
  describe(`retention [${engine}]`, () => {
    let t: TestApp
    let expiredId: string
    let liveId: string
    before(async () => {
      t = await startTestApp(engine)
      const old = await t.ingest(batch('retention-old-1', [{ type: 'ERROR', message: 'old', createdAt: daysAgo(31) }]))
      expiredId = json<{ sessionId: string }>(old).sessionId
      // Started 40 days ago but active yesterday: retention counts from lastSeenAt, so it stays.
      const live = await t.ingest(batch('retention-live-1', [
        { type: 'ERROR', message: 'start', createdAt: daysAgo(40) }, { type: 'CLICK', message: 'recent', createdAt: daysAgo(1) },
      ]))
      liveId = json<{ sessionId: string }>(live).sessionId
    })
    after(() => t.close())

    it('hides a session past retention from both endpoints at once, before any sweep', async () => {
      const list = json<{ total: number; sessions: { id: string }[] }>(await t.get('/api/v1/sessions'))
      assert.deepEqual(list.sessions.map((s) => s.id), [liveId])
      assert.equal(list.total, 1)
      const res = await t.get(`/api/v1/sessions/${expiredId}`)
      assert.equal(res.statusCode, 404)
      assert.equal(json(res).code, 'not_found')
      const day = new Date(daysAgo(31)).toISOString().slice(0, 10)
      assert.equal(json<{ total: number }>(await t.get(`/api/v1/sessions?date=${day}`)).total, 0)
      assert.equal((await t.get(`/api/v1/sessions/${liveId}`)).statusCode, 200)
    })

    it('counts retention per project', async () => {
      const longer = await t.newProject('Long', 90)
      const ingestKey = longer.ingestKey
      await t.ingest(batch('retention-long-1', [{ type: 'ERROR', message: 'x', createdAt: daysAgo(60) }]), { headers: { 'x-ingest-key': ingestKey } })
      assert.equal(json<{ total: number }>(await t.get('/api/v1/sessions', longer.apiKey)).total, 1)
    })

    it('starts a new session when an expired session key comes back', async () => {
      const res = await t.ingest(batch('retention-old-1', [{ type: 'CLICK', message: 'again' }]))
      const id = json<{ sessionId: string }>(res).sessionId
      assert.notEqual(id, expiredId)
      const body = json<{ session: { events: { total: number } } }>(await t.get(`/api/v1/sessions/${id}`))
      assert.equal(body.session.events.total, 1, 'the expired events are not revived')
    })

    it('sweeps expired sessions with their events in bounded batches, and nothing else', async () => {
      for (let i = 0; i < SWEEP_BATCH + 20; i++) {
        await t.ingest(batch(`retention-bulk-${i}`, [{ type: 'CLICK', message: 'x', createdAt: daysAgo(45) }]))
      }
      const progress: number[] = []
      const report = await sweep(t.app.db, Date.now(), (_id, n) => progress.push(n))
      assert.equal(report.deleted, SWEEP_BATCH + 20)
      assert.deepEqual(progress, [SWEEP_BATCH, SWEEP_BATCH + 20], 'one transaction per batch')
      const sessions = await t.app.db.selectFrom('sessions').select('id').where('project_id', '=', t.project.id).execute()
      assert.ok(!sessions.some((s) => s.id === expiredId))
      assert.ok(sessions.some((s) => s.id === liveId))
      const orphans = await t.app.db.selectFrom('events').select('session_id')
        .where('project_id', '=', t.project.id).where('session_id', '=', expiredId).execute()
      assert.deepEqual(orphans, [])
      assert.equal((await sweep(t.app.db, Date.now())).deleted, 0, 'a second sweep finds nothing')
    })

    it('deletes webhook deliveries past the project\'s retention with its sessions (their payloads hold visitor text)', async () => {
      const brief = await t.newProject('Brief', 1)
      await insertWebhook(t.app.db, { project_id: brief.id, id: 'wh_brief', url: 'https://hooks.example.com/brief', secret: newWebhookSecret(), created_at: Date.now() })
      await enqueueCommitted(t.app.db, issueAlert(brief.id))
      assert.equal((await storedDeliveries(t.app.db, brief.id)).length, 1)
      await sweep(t.app.db, Date.now() + 2 * DAY_MS)
      assert.deepEqual(await storedDeliveries(t.app.db, brief.id), [])
    })
  })

  describe(`retention sweeper in the service [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine, { RETENTION_SWEEP_SECONDS: '1' }) })
    after(() => t.close())

    it('deletes expired sessions on its own', async () => {
      await t.ingest(batch('sweeper-old-1', [{ type: 'CLICK', message: 'x', createdAt: daysAgo(50) }]))
      const count = async () => (await t.app.db.selectFrom('sessions').select('id').execute()).length
      assert.equal(await count(), 1)
      await eventually(async () => (await count()) === 0 || null, 'the sweep, a second after the start')
    })
  })
}
