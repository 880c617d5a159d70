import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { InjectOptions } from 'fastify'
import { invitePerson, setPasswordWithLink, type PersonInput } from '../../../src/accounts/service.ts'
import { addWebhook } from '../../../src/alerts/service.ts'
import { CLI_ACTOR } from '../../../src/audit/service.ts'
import { settledDeliveries, startReceiver } from '../../helpers/alerts.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'

const PASSWORD = 'collab test owner password'

interface Issue { id: string; assignee: { id: string; email: string } | null }
interface Comment { id: string; author: { id: string; email: string } | null; body: string; createdAt: string; updatedAt: string }

for (const engine of testEngines()) {
  describe(`assignees and comments on issues [${engine}]`, () => {
    let t: TestApp
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    const people = new Map<string, { cookie: string; id: string }>()
    let owner = ''
    let issueId = ''
    before(async () => {
      receiver = await startReceiver([200])
      t = await startTestApp(engine, { ADMIN_PASSWORD: PASSWORD, WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: { pollMs: 50 } })
      await addWebhook(t.app.db, t.project.id, receiver.url, { allowPrivate: true })
      const other = await t.newProject('Other')
      owner = await signIn('admin', PASSWORD)
      const list: [string, PersonInput][] = [
        ['member@example.com', { role: 'member', projects: [t.project.id] }],
        ['helper@example.com', { role: 'member', projects: [t.project.id] }],
        ['viewer@example.com', { role: 'viewer', projects: [t.project.id] }],
        ['outsider@example.com', { role: 'admin', projects: [other.id] }],
      ]
      for (const [email, input] of list) {
        const invited = await invitePerson(t.app.db, CLI_ACTOR, email, input)
        await setPasswordWithLink(t.app.db, invited.token, `${email} pw`, null)
        people.set(email, { cookie: await signIn(email, `${email} pw`), id: invited.person.id })
      }
      assert.equal((await t.ingest(batch('collab-visit', [{ type: 'ERROR', message: 'TypeError: basket is null' }]))).statusCode, 200)
      issueId = json<{ issues: Issue[] }>(await t.get('/api/v1/issues')).issues[0]?.id ?? ''
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })

    async function signIn(login: string, password: string): Promise<string> {
      const res = await t.app.inject({ method: 'POST', url: '/app/api/session', payload: { login, password }, headers: { 'x-sessionwatch': '1' } })
      assert.equal(res.statusCode, 204, res.body)
      return String(res.headers['set-cookie']).split(';')[0] ?? ''
    }
    const who = (email: string) => people.get(email) ?? { cookie: '', id: '' }
    const call = (cookie: string, method: InjectOptions['method'], url: string, payload?: unknown) =>
      t.app.inject({ method, url: `/app/api/projects/${t.project.id}${url}`, headers: { cookie, 'x-sessionwatch': '1' }, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) })
    const v1Issues = async (query: string) => json<{ issues: Issue[] }>(await t.get(`/api/v1/issues${query}`)).issues.map((i) => i.id)
    const auditActions = async (action: string) =>
      json<{ lines: { action: string; actor: string; target: string; detail: Record<string, unknown> }[] }>(
        await t.app.inject({ method: 'GET', url: '/app/api/audit', headers: { cookie: owner } })).lines.filter((l) => l.action === action)

    it('a member assigns an issue to a person with a role on its project, and lists filter by assignee', async () => {
      const viewer = who('viewer@example.com')
      const outsider = await call(who('member@example.com').cookie, 'PUT', `/issues/${issueId}/assignee`, { userId: who('outsider@example.com').id })
      assert.deepEqual([outsider.statusCode, json(outsider).code, json(outsider).parameter], [400, 'invalid_body', 'userId'])
      assert.match(json(outsider).message as string, new RegExp(who('outsider@example.com').id))
      const set = await call(who('member@example.com').cookie, 'PUT', `/issues/${issueId}/assignee`, { userId: viewer.id })
      assert.equal(set.statusCode, 200, set.body)
      assert.deepEqual(json(set), { assignee: { id: viewer.id, email: 'viewer@example.com' } })

      const detail = json<{ issue: Issue }>(await t.get(`/api/v1/issues/${issueId}`)).issue
      assert.deepEqual(detail.assignee, { id: viewer.id, email: 'viewer@example.com' })
      assert.deepEqual(await v1Issues('?assignee=viewer@example.com'), [issueId])
      assert.deepEqual(await v1Issues('?assignee=none'), [])
      assert.deepEqual(await v1Issues('?assignee=nobody@example.com'), [], 'an unknown person has no issues')
      const me = await t.get('/api/v1/issues?assignee=me')
      assert.deepEqual([me.statusCode, json(me).code], [400, 'invalid_parameter'], 'an API key is nobody')

      const mine = async (email: string, query: string) => json<{ issues: Issue[] }>(await call(who(email).cookie, 'GET', `/issues${query}`)).issues.map((i) => i.id)
      assert.deepEqual(await mine('viewer@example.com', '?assignee=me'), [issueId])
      assert.deepEqual(await mine('member@example.com', '?assignee=me'), [])
      assert.deepEqual(await mine('member@example.com', `?assignee=${viewer.id}`), [issueId])
      const [line] = await auditActions('issue_assigned')
      assert.deepEqual([line?.actor, line?.target, line?.detail], ['member@example.com', issueId, { from: null, to: viewer.id }])
    })

    it('comments: members write, the author alone edits, everyone reads them oldest first in the API', async () => {
      const member = who('member@example.com')
      const first = await call(member.cookie, 'POST', `/issues/${issueId}/comments`, { body: 'Looks like <b>the basket</b> is null' })
      assert.equal(first.statusCode, 201, first.body)
      const second = await call(who('helper@example.com').cookie, 'POST', `/issues/${issueId}/comments`, { body: 'I can take it' })
      assert.equal(second.statusCode, 201)
      const viewerTries = await call(who('viewer@example.com').cookie, 'POST', `/issues/${issueId}/comments`, { body: 'me too' })
      assert.deepEqual([viewerTries.statusCode, json(viewerTries).code], [403, 'forbidden'])
      for (const body of ['', ' \n ', 'x'.repeat(10_001)]) {
        assert.equal((await call(member.cookie, 'POST', `/issues/${issueId}/comments`, { body })).statusCode, 400, `refuses ${body.length} characters`)
      }
      assert.equal((await call(member.cookie, 'POST', `/issues/${issueId}/comments`, { body: 'y'.repeat(10_000) })).statusCode, 201)

      const id = json<Comment>(first).id
      const notMine = await call(who('helper@example.com').cookie, 'PATCH', `/issues/${issueId}/comments/${id}`, { body: 'changed' })
      assert.deepEqual([notMine.statusCode, json(notMine).code], [403, 'forbidden'])
      await new Promise((resolve) => setTimeout(resolve, 5))
      const edited = await call(member.cookie, 'PATCH', `/issues/${issueId}/comments/${id}`, { body: 'The basket is null after a refresh' })
      assert.equal(edited.statusCode, 200, edited.body)
      assert.equal((await call(member.cookie, 'PATCH', `/issues/${issueId}/comments/cm_none`, { body: 'x' })).statusCode, 404)

      const res = await t.get(`/api/v1/issues/${issueId}/comments`)
      assert.equal(res.statusCode, 200, res.body)
      const comments = json<{ comments: Comment[] }>(res).comments
      assert.deepEqual(comments.map((c) => [c.author?.email, c.body.slice(0, 34)]), [
        ['member@example.com', 'The basket is null after a refresh'], ['helper@example.com', 'I can take it'], ['member@example.com', 'y'.repeat(34)],
      ])
      assert.ok((comments[0]?.updatedAt ?? '') > (comments[0]?.createdAt ?? ''), 'an edit moves updatedAt')
      assert.equal((await t.get('/api/v1/issues/no-such-issue/comments')).statusCode, 404)
      assert.equal((await auditActions('issue_commented')).length, 4)
    })

    it('removing a person unassigns their issues and leaves their comments without an author', async () => {
      const viewer = who('viewer@example.com')
      const helper = who('helper@example.com')
      const again = await call(who('member@example.com').cookie, 'PUT', `/issues/${issueId}/assignee`, { userId: helper.id })
      assert.equal(again.statusCode, 200)
      for (const id of [helper.id, viewer.id]) {
        assert.equal((await t.app.inject({ method: 'DELETE', url: `/app/api/people/${id}`, headers: { cookie: owner, 'x-sessionwatch': '1' } })).statusCode, 204)
      }
      assert.equal(json<{ issue: Issue }>(await t.get(`/api/v1/issues/${issueId}`)).issue.assignee, null)
      const comments = json<{ comments: Comment[] }>(await t.get(`/api/v1/issues/${issueId}/comments`)).comments
      assert.deepEqual(comments.map((c) => c.author?.email ?? null), ['member@example.com', null, 'member@example.com'])
      assert.equal(comments[1]?.body, 'I can take it')
    })

    it('a regression\'s webhook message names the assignee', async () => {
      const member = who('member@example.com')
      assert.equal((await call(member.cookie, 'PUT', `/issues/${issueId}/assignee`, { userId: member.id })).statusCode, 200)
      assert.equal((await call(member.cookie, 'POST', `/issues/${issueId}/status`, { status: 'resolved' })).statusCode, 200)
      await new Promise((resolve) => setTimeout(resolve, 5))
      await t.ingest(batch('collab-visit-2', [{ type: 'ERROR', message: 'TypeError: basket is null', createdAt: Date.now() }]))
      await settledDeliveries(t.app.db, t.project.id, 'the regression', (d) => d.kind !== 'regression' || d.status === 'delivered')
      const sent = receiver.received.map((r) => JSON.parse(r.body) as { kind: string; issue: Issue; text: string })
      const regression = sent.find((p) => p.kind === 'regression')
      assert.ok(regression, 'a regression was sent')
      assert.deepEqual(regression.issue.assignee, { id: member.id, email: 'member@example.com' })
      assert.match(regression.text, /assigned to member@example\.com/)
      assert.equal(sent.find((p) => p.kind === 'new')?.issue.assignee, null)
    })
  })
}
