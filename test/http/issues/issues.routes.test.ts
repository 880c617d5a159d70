import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { main } from '../../../src/cli.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'

interface Issue {
  id: string
  type: string
  title: string
  culprit: string | null
  firstSeenAt: string
  lastSeenAt: string
  events: number
  sessions: number
  status: string
  groupingVersion: number
}
interface IssueList { total: number; limit: number; offset: number; issues: Issue[] }

const STACK = (n: number) => `TypeError: Order ${n} has no items\n    at checkout (https://shop.example/static/app-7RZI5MVM.js:1:100)\n    at onClick (https://shop.example/static/app-7RZI5MVM.js:1:200)`

for (const engine of testEngines()) {
  describe(`issues API [${engine}]`, () => {
    let t: TestApp
    const t0 = Date.now() - 60_000
    let visitA = ''
    before(async () => {
      t = await startTestApp(engine)
      // The same bug in two visits with different order numbers, a failed request in both, and another bug once.
      visitA = json<{ sessionId: string }>(await t.ingest(batch('issue-visit-a', [
        { type: 'ERROR', message: 'Uncaught TypeError: Order 1234 has no items', stack: STACK(1234), createdAt: t0 },
        { type: 'HTTP_ERROR', url: 'https://shop.example/api/orders/1234?x=1', method: 'post', statusCode: 500, createdAt: t0 + 10 },
        { type: 'CLICK', message: 'button#buy', createdAt: t0 + 20 },
      ]))).sessionId
      await t.ingest(batch('issue-visit-b', [
        { type: 'ERROR', message: 'Uncaught TypeError: Order 99 has no items', stack: STACK(99), createdAt: t0 + 1000 },
        { type: 'HTTP_ERROR', url: 'https://shop.example/api/orders/99', method: 'POST', statusCode: 500, createdAt: t0 + 1010 },
        { type: 'ERROR', message: 'ReferenceError: cart is not defined', stack: 'ReferenceError: cart is not defined\n    at render (https://shop.example/static/app-7RZI5MVM.js:1:900)', createdAt: t0 + 1020 },
      ]))
    })
    after(() => t.close())

    it('lists issues most recent first, with exact counts and an exact total', async () => {
      const res = await t.get('/api/v1/issues')
      assert.equal(res.statusCode, 200)
      const body = json<IssueList & { project: unknown }>(res)
      assert.deepEqual(Object.keys(body), ['project', 'total', 'limit', 'offset', 'issues', 'next'])
      assert.equal(body.total, 3)
      const order = body.issues.find((i) => i.type === 'ERROR' && i.title.startsWith('TypeError'))
      assert.ok(order, 'the order bug is one issue')
      assert.equal(order.title, 'TypeError: Order <int> has no items')
      assert.deepEqual([order.events, order.sessions, order.status, order.groupingVersion], [2, 2, 'open', 1])
      const request = body.issues.find((i) => i.type === 'HTTP_ERROR')
      assert.ok(request)
      assert.deepEqual([request.events, request.sessions], [2, 2])
      const lastSeen = body.issues.map((i) => i.lastSeenAt)
      assert.deepEqual(lastSeen, [...lastSeen].sort().reverse())
    })

    it('a retried batch changes no count', async () => {
      const again = batch('issue-visit-a', [
        { type: 'ERROR', message: 'Uncaught TypeError: Order 1234 has no items', stack: STACK(1234), createdAt: t0 },
      ])
      const res = await t.ingest({ ...again, batchId: 'retry-me' })
      assert.equal(res.statusCode, 200)
      assert.equal(json<{ accepted: number }>(await t.ingest({ ...again, batchId: 'retry-me' })).accepted, 0)
      const list = json<IssueList>(await t.get('/api/v1/issues'))
      const order = list.issues.find((i) => i.title.startsWith('TypeError'))
      assert.equal(order?.events, 3)
      assert.equal(order.sessions, 2)
    })

    it('getIssue gives the issue, its latest event and its visits; getSession events carry issueId', async () => {
      const list = json<IssueList>(await t.get('/api/v1/issues'))
      const order = list.issues.find((i) => i.title.startsWith('TypeError'))
      assert.ok(order)
      const res = await t.get(`/api/v1/issues/${order.id}`)
      assert.equal(res.statusCode, 200)
      const detail = json<{ issue: Issue; latestEvent: { sessionId: string; event: { issueId: string; message: string } }; sessions: { id: string }[] }>(res)
      assert.equal(detail.issue.id, order.id)
      assert.equal(detail.latestEvent.event.issueId, order.id)
      assert.match(detail.latestEvent.event.message, /Order/)
      assert.equal(detail.sessions.length, 2)
      const session = json<{ events: { type: string; issueId: string | null }[] }>(await t.get(`/api/v1/sessions/${visitA}`))
      for (const e of session.events) {
        if (e.type === 'ERROR' || e.type === 'HTTP_ERROR') assert.equal(typeof e.issueId, 'string', `${e.type} has its issue`)
        else assert.equal(e.issueId, null)
      }
      const visits = json<{ total: number; sessions: { id: string }[] }>(await t.get(`/api/v1/sessions?issue=${order.id}`))
      assert.equal(visits.total, 2)
      assert.deepEqual(visits.sessions.map((s) => s.id).sort(), detail.sessions.map((s) => s.id).sort())
    })

    it('unknown ids answer 404, unknown issue filters list nothing, bad parameters answer 400 naming them', async () => {
      assert.equal((await t.get('/api/v1/issues/nope')).statusCode, 404)
      assert.equal((await t.get(`/api/v1/issues/${'x'.repeat(65)}`)).statusCode, 404)
      assert.equal(json<{ total: number }>(await t.get('/api/v1/sessions?issue=nope')).total, 0)
      assert.equal(json<{ total: number }>(await t.get('/api/v1/sessions?issue=a%00b')).total, 0)
      for (const [query, parameter] of [['status=done', 'status'], ['limit=0', 'limit'], ['from=yesterday', 'from'], ['sort=title', 'sort']]) {
        const res = await t.get(`/api/v1/issues?${query}`)
        assert.equal(res.statusCode, 400, query)
        assert.equal(json<{ code: string; parameter: string }>(res).parameter, parameter)
      }
      assert.equal((await t.get('/api/v1/issues', 'sw_api_wrong')).statusCode, 401)
    })

    it('another project\'s key sees none of these issues', async () => {
      const other = await t.newProject('Other shop')
      const res = await t.get('/api/v1/issues', other.apiKey)
      assert.equal(json<IssueList>(res).total, 0)
      const list = json<IssueList>(await t.get('/api/v1/issues'))
      assert.equal((await t.get(`/api/v1/issues/${list.issues[0]?.id ?? ''}`, other.apiKey)).statusCode, 404)
    })

    it('the CLI resolves, ignores and reopens; a resolved issue reopens when it occurs again', async () => {
      const list = json<IssueList>(await t.get('/api/v1/issues'))
      const ref = list.issues.find((i) => i.title.startsWith('ReferenceError'))
      assert.ok(ref)
      const env = { DATABASE_URL: t.databaseUrl }
      assert.equal(await main(['issue', 'resolve', '--project', t.project.id, ref.id], env), 0)
      assert.equal(json<IssueList>(await t.get('/api/v1/issues?status=resolved')).total, 1)
      assert.equal(await main(['issue', 'resolve', '--project', t.project.id, 'nope'], env), 1)
      await t.ingest(batch('issue-visit-c', [
        { type: 'ERROR', message: 'ReferenceError: cart is not defined', stack: 'ReferenceError: cart is not defined\n    at render (https://shop.example/static/app-Q2xY9pAB.js:1:900)', createdAt: Date.now() },
      ]))
      const reopened = json<{ issue: Issue }>(await t.get(`/api/v1/issues/${ref.id}`)).issue
      assert.deepEqual([reopened.status, reopened.events, reopened.sessions], ['open', 2, 2], 'another deploy\'s chunk name is the same issue')
      assert.equal(await main(['issue', 'ignore', '--project', t.project.id, ref.id], env), 0)
      assert.equal(json<IssueList>(await t.get('/api/v1/issues?status=ignored')).issues[0]?.id, ref.id)
    })
  })
}
