import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { InjectOptions } from 'fastify'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'
import { chunkUpload, rrwebEvents } from '../../helpers/recording.ts'

const PASSWORD = 'people test owner password'

interface Line { actor: string; action: string; projectId: string | null; target: string | null; detail: Record<string, unknown> | null; ip: string | null }

for (const engine of testEngines()) {
  describe(`people, sign-ins and the audit trail [${engine}]`, () => {
    let t: TestApp
    let owner: string
    before(async () => {
      t = await startTestApp(engine, { ADMIN_PASSWORD: PASSWORD, PUBLIC_URL: 'https://sw.example.com' })
      owner = await signIn('admin', PASSWORD)
    })
    after(() => t.close())

    async function signIn(login: string, password: string, ip = '10.1.0.1'): Promise<string> {
      const res = await t.app.inject({ method: 'POST', url: '/app/api/session', remoteAddress: ip, payload: { login, password }, headers: { 'x-sessionwatch': '1', 'user-agent': `agent of ${login}` } })
      assert.equal(res.statusCode, 204, res.body)
      return String(res.headers['set-cookie']).split(';')[0] ?? ''
    }
    const call = (cookie: string, method: InjectOptions['method'], url: string, payload?: unknown) =>
      t.app.inject({ method, url: `/app/api${url}`, headers: { cookie, 'x-sessionwatch': '1' }, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) })
    const audit = async (query = '') => json<{ lines: Line[] }>(await call(owner, 'GET', `/audit${query}`)).lines

    /** Invites a person, follows their link to set a password, and returns their cookie and id. */
    async function person(email: string, role: string, projects?: string[]): Promise<{ cookie: string; id: string }> {
      const invited = await call(owner, 'POST', '/people', { email, role, ...(projects ? { projects } : {}) })
      assert.equal(invited.statusCode, 201, invited.body)
      const { inviteUrl, person: p } = json<{ inviteUrl: string; person: { id: string } }>(invited)
      assert.match(inviteUrl, /^https:\/\/sw\.example\.com\/app#\/link\/[\w-]{43}$/)
      const token = inviteUrl.split('/').at(-1) ?? ''
      assert.deepEqual(json(await call('', 'GET', `/links/${token}`)), { email })
      const set = await call('', 'POST', `/links/${token}`, { password: `${email} secret` })
      assert.equal(set.statusCode, 204, set.body)
      const cookie = String(set.headers['set-cookie']).split(';')[0] ?? ''
      assert.equal((await call(cookie, 'GET', '/me')).statusCode, 200, 'setting the password signs the browser in')
      assert.equal((await call('', 'POST', `/links/${token}`, { password: 'another password' })).statusCode, 404, 'a link works once')
      return { cookie, id: p.id }
    }

    it('an invited person sets a password with their link, sees only their projects, and lists and ends their sign-ins', async () => {
      const other = await t.newProject('Other shop')
      const ann = await person('ann@example.com', 'viewer', [t.project.id])
      const me = json<{ email: string; role: null; projects: unknown[] }>(await call(ann.cookie, 'GET', '/me'))
      assert.deepEqual([me.email, me.role, me.projects], ['ann@example.com', null, [{ projectId: t.project.id, role: 'viewer' }]])
      const projects = json<{ projects: { id: string; role: string }[] }>(await call(ann.cookie, 'GET', '/projects')).projects
      assert.deepEqual(projects.map((p) => [p.id, p.role]), [[t.project.id, 'viewer']], `not ${other.id}`)
      const second = await signIn('ann@example.com', 'ann@example.com secret', '10.1.0.9')
      const signIns = json<{ signIns: { id: string; current: boolean; ip: string; userAgent: string }[] }>(await call(ann.cookie, 'GET', '/me/sign-ins')).signIns
      assert.equal(signIns.length, 2)
      const elsewhere = signIns.find((s) => !s.current)
      assert.deepEqual([elsewhere?.ip, elsewhere?.userAgent], ['10.1.0.9', 'agent of ann@example.com'])
      assert.equal((await call(ann.cookie, 'DELETE', `/me/sign-ins/${elsewhere?.id ?? ''}`)).statusCode, 204)
      assert.equal((await call(second, 'GET', '/me')).statusCode, 401, 'the ended sign-in no longer works')
      assert.equal((await call(ann.cookie, 'GET', '/me')).statusCode, 200, 'the current one does')
    })

    it('removing a person or making them a password link ends their sign-ins at once; the last owner stays', async () => {
      const bob = await person('bob@example.com', 'member')
      const link = await call(owner, 'POST', `/people/${bob.id}/password-link`)
      assert.equal(link.statusCode, 200, link.body)
      assert.equal((await call(bob.cookie, 'GET', '/me')).statusCode, 401)
      const carol = await person('carol@example.com', 'admin', [t.project.id])
      assert.equal((await call(owner, 'DELETE', `/people/${carol.id}`)).statusCode, 204)
      assert.equal((await call(carol.cookie, 'GET', '/projects')).statusCode, 401)
      const people = json<{ people: { id: string; email: string }[] }>(await call(owner, 'GET', '/people')).people
      const admin = people.find((p) => p.email === 'admin')
      const last = await call(owner, 'DELETE', `/people/${admin?.id ?? ''}`)
      assert.equal(last.statusCode, 409)
      assert.match(json(last).message as string, /only owner/)
      const again = await call(owner, 'POST', '/people', { email: 'ann@example.com', role: 'viewer' })
      assert.deepEqual([again.statusCode, json(again).code], [409, 'conflict'])
    })

    it('records sign-ins, failed ones, views of a visit, its replay and an issue, and changes, each with who and when', async () => {
      const sent = await t.ingest(batch('audited-visit', [{ type: 'ERROR', message: 'TypeError: audited' }], { recording: [chunkUpload('r0', rrwebEvents(Date.now() - 1000))] }))
      assert.equal(sent.statusCode, 200, sent.body)
      const visit = json<{ sessionId: string }>(sent).sessionId
      const dave = await person('dave@example.com', 'member', [t.project.id])
      const failed = await t.app.inject({ method: 'POST', url: '/app/api/session', remoteAddress: '10.1.0.7', payload: { login: 'dave@example.com', password: 'guess' }, headers: { 'x-sessionwatch': '1' } })
      assert.equal(failed.statusCode, 401)
      const p = `/projects/${t.project.id}`
      assert.equal((await call(dave.cookie, 'GET', `${p}/sessions/${visit}`)).statusCode, 200)
      assert.equal((await call(dave.cookie, 'GET', `${p}/sessions/${visit}/recording`)).statusCode, 200)
      const issueId = json<{ issues: { id: string }[] }>(await call(dave.cookie, 'GET', `${p}/issues`)).issues[0]?.id ?? ''
      assert.equal((await call(dave.cookie, 'GET', `${p}/issues/${issueId}`)).statusCode, 200)
      assert.equal((await call(dave.cookie, 'GET', `${p}/sessions/no-such-visit`)).statusCode, 404)
      assert.equal((await call(owner, 'PATCH', p, { retentionDays: 30 })).statusCode, 200)
      const lines = await audit()
      const find = (action: string, actor: string) => lines.find((l) => l.action === action && l.actor === actor)
      assert.equal(find('sign_in_failed', 'dave@example.com')?.ip, '10.1.0.7')
      assert.ok(find('password_set', 'dave@example.com'))
      assert.equal(find('visit_viewed', 'dave@example.com')?.target, visit)
      assert.equal(find('replay_viewed', 'dave@example.com')?.target, visit)
      assert.equal(find('issue_viewed', 'dave@example.com')?.target, issueId)
      assert.deepEqual(find('settings_changed', 'admin')?.detail, { fields: ['retentionDays'] })
      assert.ok(find('user_invited', 'admin'))
      assert.ok(!lines.some((l) => l.target === 'no-such-visit'), 'a visit not shown is not recorded as viewed')
      const page = json<{ lines: Line[]; next: number | null }>(await call(owner, 'GET', '/audit?limit=2'))
      assert.equal(page.lines.length, 2)
      assert.ok(page.next)
      const older = json<{ lines: { id: number }[] }>(await call(owner, 'GET', `/audit?limit=2&before=${page.next}`))
      assert.ok(older.lines.every((l) => l.id < (page.next ?? 0)))
    })

    it('an admin of one project reads the lines of that project alone', async () => {
      const other = await t.newProject('Elsewhere')
      assert.equal((await call(owner, 'PATCH', `/projects/${other.id}`, { retentionDays: 20 })).statusCode, 200)
      const erin = await person('erin@example.com', 'admin', [t.project.id])
      const lines = json<{ lines: Line[] }>(await call(erin.cookie, 'GET', '/audit')).lines
      assert.ok(lines.length > 0 && lines.every((l) => l.projectId === t.project.id), JSON.stringify(lines.map((l) => l.projectId)))
      assert.deepEqual(json<{ lines: Line[] }>(await call(erin.cookie, 'GET', `/audit?project=${other.id}`)).lines, [])
    })
  })
}
