import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { addWebhook } from '../../../src/alerts/service.ts'
import { setIssueStatus } from '../../../src/issues/store.ts'
import { settledDeliveries, startReceiver } from '../../helpers/alerts.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'

interface Payload { kind: string; issue: { id: string; type: string; title: string; culprit: string | null; events: number }; text: string }
interface Issue { id: string; type: string; title: string; culprit: string | null; events: number; sessions: number }
type Event = { type: string; issueId: string | null; selector?: string }

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

    const visit = async (key: string, events: Record<string, unknown>[]) => {
      const res = await t.ingest(batch(key, events))
      assert.equal(res.statusCode, 200, res.body)
      return json<{ sessionId: string }>(res).sessionId
    }
    const detail = async (id: string) =>
      json<{ session: { events: { errors: number; total: number } }; events: Event[] }>(await t.get(`/api/v1/sessions/${id}`))

    it('rage clicks on one element of /orders/:id are one issue across visits, and alert once like an error', async () => {
      const now = Date.now()
      const first = await visit('rage-visit-1', [
        { type: 'RAGE_CLICK', url: 'https://shop.example/orders/41?tab=pay', selector: 'button#pay', text: 'Pay now', count: 6, createdAt: now - 2000 },
        { type: 'DEAD_CLICK', url: 'https://shop.example/orders/41', selector: 'a.help', text: 'Help', createdAt: now - 1500 },
      ])
      const second = await visit('rage-visit-2', [
        { type: 'RAGE_CLICK', url: 'https://shop.example/orders/77', selector: 'button#pay', text: 'Pay now', count: 3, createdAt: now - 1000 },
      ])
      const [a, b] = [await detail(first), await detail(second)]
      const rageA = a.events.find((e) => e.type === 'RAGE_CLICK')
      assert.ok(rageA?.issueId, 'grouped')
      assert.equal(b.events.find((e) => e.type === 'RAGE_CLICK')?.issueId, rageA.issueId, 'the second visit joins it')
      assert.equal(a.events.find((e) => e.type === 'DEAD_CLICK')?.issueId, null, 'a dead click opens no issue')
      // The spec's errors are ERROR and HTTP_ERROR: a visit with only clicks is not broken.
      assert.deepEqual([a.session.events.errors, a.session.events.total], [0, 2])

      const { issue, latestEvent } = json<{ issue: Issue; latestEvent: { event: Event } }>(await t.get(`/api/v1/issues/${rageA.issueId}`))
      assert.deepEqual([issue.type, issue.title, issue.culprit, issue.events, issue.sessions],
        ['RAGE_CLICK', 'Rage clicks on "Pay now"', 'button#pay on https://shop.example/orders/:id', 2, 2])
      assert.equal(latestEvent.event.selector, 'button#pay')
      const listed = json<{ issues: Issue[] }>(await t.get('/api/v1/issues?status=open')).issues
      assert.deepEqual(listed.filter((i) => i.type === 'RAGE_CLICK').map((i) => i.id), [issue.id])
      const visits = json<{ total: number }>(await t.get(`/api/v1/sessions?issue=${issue.id}`))
      assert.equal(visits.total, 2)

      await settledDeliveries(t.app.db, t.project.id, 'the new issue\'s delivery')
      const rageAlerts = payloads().filter((p) => p.issue.type === 'RAGE_CLICK')
      assert.deepEqual(rageAlerts.map((p) => [p.kind, p.issue.id, p.issue.type, p.issue.culprit]),
        [['new', issue.id, 'RAGE_CLICK', 'button#pay on https://shop.example/orders/:id']])
      assert.match(rageAlerts[0]?.text ?? '', /New issue in .*Rage clicks on "Pay now"/)
    })
  })
}
