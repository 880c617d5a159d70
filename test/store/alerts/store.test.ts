import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { WEBHOOK_LEASE_MS, WEBHOOK_RATE_LIMIT } from '../../../src/alerts/limits.ts'
import type { AlertFacts } from '../../../src/alerts/payload.ts'
import { newWebhookSecret } from '../../../src/alerts/sign.ts'
import {
  claimDelivery, deleteDeliveriesBefore, deleteWebhook, dueDeliveries, enqueueIssueAlert, insertWebhook, RATE_LIMITED, recordAttempt,
} from '../../../src/alerts/store.ts'
import { createProject } from '../../../src/projects/service.ts'
import { enqueueCommitted, issueAlert, storedDeliveries } from '../../helpers/alerts.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'

for (const engine of testEngines()) {
  describe(`alerts store [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    const project = async (name: string, hooks: number) => {
      const { id } = await createProject(handle.db, { name, domain: 'shop.example' })
      for (let i = 0; i < hooks; i++) await insertWebhook(handle.db, { project_id: id, id: `wh_${name}_${i}`, url: `https://hooks.example.com/${name}/${i}`, secret: newWebhookSecret(), created_at: i })
      return id
    }
    before(async () => { handle = await openTestDatabase(engine) })
    after(() => handle.dispose())

    it('queues nothing for a project without webhooks', async () => {
      const id = await project('Quiet', 0)
      await enqueueCommitted(handle.db, issueAlert(id))
      assert.deepEqual(await storedDeliveries(handle.db, id), [])
    })

    it('queues one pending delivery per webhook with the facts as they were, and a repeated alert changes nothing', async () => {
      const id = await project('Two', 2)
      const alert = issueAlert(id, { issue: { title: 'Boom <b>', events: 7, sessions: 3 } })
      await enqueueCommitted(handle.db, alert)
      await enqueueCommitted(handle.db, alert)
      const rows = await storedDeliveries(handle.db, id)
      assert.deepEqual(rows.map((r) => [r.webhook_id, r.status, r.attempts, r.kind, r.issue_id]).sort(),
        [['wh_Two_0', 'pending', 0, 'new', alert.issue.id], ['wh_Two_1', 'pending', 0, 'new', alert.issue.id]])
      assert.notEqual(rows[0]?.id, rows[1]?.id)
      const facts = JSON.parse(rows[0]?.payload ?? '') as AlertFacts
      assert.deepEqual([facts.project.name, facts.issue.title, facts.issue.events, facts.issue.sessions], ['Two', 'Boom <b>', 7, 3])
      // The same issue regressing (another kind, another time) is another alert.
      await enqueueCommitted(handle.db, { ...alert, kind: 'regression', at: alert.at + 1000 })
      await enqueueCommitted(handle.db, { ...alert, kind: 'regression', at: alert.at + 5000 })
      assert.equal((await storedDeliveries(handle.db, id)).length, 6)
    })

    it('queues in the caller\'s transaction: an issue change rolled back leaves no delivery', async () => {
      const id = await project('Rolled', 1)
      await assert.rejects(handle.db.transaction().execute(async (trx) => {
        await enqueueIssueAlert(trx, issueAlert(id))
        throw new Error('the ingest transaction failed')
      }), /ingest transaction failed/)
      assert.deepEqual(await storedDeliveries(handle.db, id), [])
    })

    it(`stores the deliveries of alerts beyond ${WEBHOOK_RATE_LIMIT} per project in the window as dropped, with the reason`, async () => {
      const id = await project('Burst', 1)
      for (let i = 0; i <= WEBHOOK_RATE_LIMIT + 1; i++) await enqueueCommitted(handle.db, issueAlert(id))
      const rows = await storedDeliveries(handle.db, id)
      assert.equal(rows.filter((r) => r.status === 'pending').length, WEBHOOK_RATE_LIMIT)
      const dropped = rows.filter((r) => r.status === 'dropped')
      assert.equal(dropped.length, 2)
      assert.deepEqual(dropped.map((r) => [r.last_error, r.next_attempt_at]), [[RATE_LIMITED, null], [RATE_LIMITED, null]])
      assert.match(RATE_LIMITED, /over 20 alerts of this project in 10 minutes/)
      // The limit is the project's: a webhook added during the burst gets no allowance of its own.
      await insertWebhook(handle.db, { project_id: id, id: 'wh_Burst_new', url: 'https://hooks.example.com/new', secret: newWebhookSecret(), created_at: 1 })
      await enqueueCommitted(handle.db, issueAlert(id))
      const latest = (await storedDeliveries(handle.db, id)).filter((r) => r.webhook_id === 'wh_Burst_new')
      assert.deepEqual(latest.map((r) => r.status), ['dropped'])
    })

    it('lets exactly one of several claimers take a due delivery, and only the lease holder record its attempt', async () => {
      const id = await project('Claim', 1)
      await enqueueCommitted(handle.db, issueAlert(id))
      const now = Date.now() + 1000
      const due = (await dueDeliveries(handle.db, now, 100)).filter((d) => d.project_id === id)
      assert.equal(due.length, 1)
      const [delivery] = due
      assert.ok(delivery)
      assert.equal(delivery.url, 'https://hooks.example.com/Claim/0')
      const claims = await Promise.all([1, 2, 3].map((n) => claimDelivery(handle.db, delivery, now + WEBHOOK_LEASE_MS + n)))
      assert.equal(claims.filter(Boolean).length, 1)
      const holder = now + WEBHOOK_LEASE_MS + 1 + claims.indexOf(true)
      assert.ok(!(await dueDeliveries(handle.db, now, 100)).some((d) => d.id === delivery.id), 'a claimed delivery is not due')
      const attempt = { status: 'delivered' as const, nextAttemptAt: null, lastStatus: 200, lastError: null, deliveredAt: now }
      assert.equal(await recordAttempt(handle.db, delivery, holder + 1, attempt), false, 'not the lease holder')
      assert.equal(await recordAttempt(handle.db, delivery, holder, attempt), true)
      const [row] = await storedDeliveries(handle.db, id)
      assert.deepEqual([row?.status, row?.attempts, row?.last_status, row?.delivered_at, row?.next_attempt_at], ['delivered', 1, 200, now, null])
    })

    it('removing a webhook removes its deliveries; retention deletes a project\'s older deliveries', async () => {
      const id = await project('Gone', 2)
      await enqueueCommitted(handle.db, issueAlert(id))
      assert.equal(await deleteWebhook(handle.db, id, 'wh_Gone_0'), true)
      assert.equal(await deleteWebhook(handle.db, id, 'wh_Gone_0'), false)
      assert.deepEqual((await storedDeliveries(handle.db, id)).map((r) => r.webhook_id), ['wh_Gone_1'])
      const other = await project('Kept', 1)
      await enqueueCommitted(handle.db, issueAlert(other))
      assert.equal(await deleteDeliveriesBefore(handle.db, id, Date.now() + 1), 1)
      assert.deepEqual(await storedDeliveries(handle.db, id), [])
      assert.equal((await storedDeliveries(handle.db, other)).length, 1, 'other projects keep theirs')
    })
  })
}
