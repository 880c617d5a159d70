import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { addWebhook } from '../../../src/alerts/service.ts'
import { setIssueStatus } from '../../../src/issues/store.ts'
import { settledDeliveries, startReceiver } from '../../helpers/alerts.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'

interface Payload { kind: string; issue: { id: string; title: string; events: number } }

for (const engine of testEngines()) {
  describe(`issue alerts from ingest [${engine}]`, () => {
    let t: TestApp
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    before(async () => {
      receiver = await startReceiver([200])
      t = await startTestApp(engine, { WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: { pollMs: 50 } })
      await addWebhook(t.app.db, t.project.id, receiver.url, { allowPrivate: true })
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })
    const payloads = () => receiver.received.map((r) => JSON.parse(r.body) as Payload)

    it('one "new" delivery per new issue, however many events and retries', async () => {
      const now = Date.now()
      const body = batch('alert-visit', [
        { type: 'ERROR', message: 'TypeError: Order 1 has no items', createdAt: now - 3000 },
        { type: 'ERROR', message: 'TypeError: Order 2 has no items', createdAt: now - 2000 },
        { type: 'HTTP_ERROR', url: '/api/orders/7', method: 'POST', statusCode: 500, createdAt: now - 1000 },
      ])
      assert.equal((await t.ingest(body)).statusCode, 200)
      assert.equal((await t.ingest(body)).statusCode, 200, 'a retry')
      await t.ingest(batch('alert-visit-2', [{ type: 'ERROR', message: 'TypeError: Order 3 has no items', createdAt: now }]))
      // One delivery queued per new issue, each sent once: the receiver has had all there will be.
      const deliveries = await settledDeliveries(t.app.db, t.project.id, 'the deliveries sent')
      assert.deepEqual(deliveries.map((d) => [d.status, d.attempts]), [['delivered', 1], ['delivered', 1]])
      const got = payloads()
      assert.deepEqual(got.map((p) => p.kind), ['new', 'new'])
      assert.deepEqual(got.map((p) => p.issue.title).sort(), ['POST /api/orders/:id → 500', 'TypeError: Order <int> has no items'])
    })

    it('a resolved issue that occurs again sends one "regression"', async () => {
      const list = json<{ issues: { id: string; title: string }[] }>(await t.get('/api/v1/issues'))
      const order = list.issues.find((i) => i.title.startsWith('TypeError'))
      assert.ok(order)
      await setIssueStatus(t.app.db, t.project.id, order.id, 'resolved', Date.now() - 1)
      await t.ingest(batch('alert-visit-3', [{ type: 'ERROR', message: 'TypeError: Order 4 has no items', createdAt: Date.now() }]))
      await t.ingest(batch('alert-visit-4', [{ type: 'ERROR', message: 'TypeError: Order 5 has no items', createdAt: Date.now() }]))
      const deliveries = await settledDeliveries(t.app.db, t.project.id, 'the regression delivery', (d) => d.status === 'delivered')
      assert.deepEqual(deliveries.map((d) => d.attempts), [1, 1, 1], 'one more delivery, sent once')
      assert.deepEqual(payloads().map((p) => p.kind), ['new', 'new', 'regression'])
      assert.equal(payloads()[2]?.issue.id, order.id)
    })
  })
}
