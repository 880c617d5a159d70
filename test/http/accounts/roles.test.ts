import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { InjectOptions } from 'fastify'
import { invitePerson, setPasswordWithLink, type PersonInput } from '../../../src/accounts/service.ts'
import { CLI_ACTOR } from '../../../src/audit/service.ts'
import { ROUTE_ACCESS } from '../../../src/dashboard/access.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'

const PASSWORD = 'role table owner password'

/**
 * Every dashboard route and who may call it, written out here rather than read from the code: the table the server
 * is held to. `signedIn`: anyone signed in; a role: at least that role on the project in the path (else on every
 * project); `anyAdmin`: admin of at least one project.
 */
const TABLE: [method: InjectOptions['method'], path: string, need: string][] = [
  ['POST', '/session', 'public'],
  ['GET', '/links/:token', 'public'],
  ['GET', '/sign-in-options', 'public'],
  ['GET', '/sso/start', 'public'],
  ['GET', '/sso/callback', 'public'],
  ['POST', '/links/:token', 'public'],
  ['GET', '/me', 'signedIn'],
  ['GET', '/me/sign-ins', 'signedIn'],
  ['DELETE', '/me/sign-ins/:signInId', 'signedIn'],
  ['GET', '/projects', 'signedIn'],
  ['POST', '/projects', 'owner'],
  ['PATCH', '/projects/:projectId', 'admin'],
  ['GET', '/projects/:projectId/usage', 'viewer'],
  ['POST', '/projects/:projectId/api-key', 'admin'],
  ['POST', '/projects/:projectId/upload-key', 'admin'],
  ['GET', '/projects/:projectId/sessions', 'viewer'],
  ['GET', '/projects/:projectId/sessions/:id', 'viewer'],
  ['GET', '/projects/:projectId/sessions/:id/recording', 'viewer'],
  ['GET', '/projects/:projectId/sessions/:id/recording/chunks/:chunkId', 'viewer'],
  ['GET', '/projects/:projectId/issues', 'viewer'],
  ['GET', '/projects/:projectId/issues/:id', 'viewer'],
  ['GET', '/projects/:projectId/issues/:id/histogram', 'viewer'],
  ['POST', '/projects/:projectId/issues/:id/status', 'member'],
  ['PUT', '/projects/:projectId/issues/:id/assignee', 'member'],
  ['GET', '/projects/:projectId/issues/:id/comments', 'viewer'],
  ['POST', '/projects/:projectId/issues/:id/comments', 'member'],
  ['PATCH', '/projects/:projectId/issues/:id/comments/:commentId', 'member'],
  ['GET', '/projects/:projectId/people', 'member'],
  ['POST', '/projects/:projectId/sessions/:id/public-link', 'member'],
  ['GET', '/projects/:projectId/public-links', 'member'],
  ['DELETE', '/projects/:projectId/public-links/:linkId', 'member'],
  ['GET', '/public-replays/:token/recording', 'public'],
  ['GET', '/public-replays/:token/recording/chunks/:chunkId', 'public'],
  ['GET', '/projects/:projectId/releases', 'viewer'],
  ['GET', '/projects/:projectId/releases/:release', 'viewer'],
  ['GET', '/projects/:projectId/pages', 'viewer'],
  ['GET', '/projects/:projectId/webhooks', 'admin'],
  ['POST', '/projects/:projectId/webhooks', 'admin'],
  ['DELETE', '/projects/:projectId/webhooks/:webhookId', 'admin'],
  ['GET', '/projects/:projectId/webhooks/deliveries', 'admin'],
  ['POST', '/projects/:projectId/erase', 'admin'],
  ['GET', '/people', 'owner'],
  ['POST', '/people', 'owner'],
  ['PATCH', '/people/:userId', 'owner'],
  ['DELETE', '/people/:userId', 'owner'],
  ['POST', '/people/:userId/password-link', 'owner'],
  ['GET', '/people/:userId/sign-ins', 'owner'],
  ['DELETE', '/people/:userId/sign-ins', 'owner'],
  ['GET', '/audit', 'anyAdmin'],
  ['DELETE', '/session', 'signedIn'],
]

/** The callers: signed out, each role on project A alone, the owner, and a viewer of project B alone. */
const CLIENTS = ['signedOut', 'viewer', 'member', 'admin', 'owner', 'otherViewer'] as const
type Client = (typeof CLIENTS)[number]
const RANK: Record<string, number | undefined> = { viewer: 0, member: 1, admin: 2, owner: 3 }

function expected(need: string, client: Client, inProject: boolean): 'allowed' | 'forbidden' | 'not_signed_in' {
  if (need === 'public') return 'allowed'
  if (client === 'signedOut') return 'not_signed_in'
  if (need === 'signedIn') return 'allowed'
  if (client === 'owner') return 'allowed'
  if (client === 'otherViewer') return 'forbidden'
  if (need === 'anyAdmin') return client === 'admin' ? 'allowed' : 'forbidden'
  // A per-project role never reaches what needs a role on every project.
  if (!inProject) return 'forbidden'
  return (RANK[client] ?? -1) >= (RANK[need] ?? 99) ? 'allowed' : 'forbidden'
}

for (const engine of testEngines()) {
  describe(`every dashboard route, with every role [${engine}]`, () => {
    let t: TestApp
    const cookies = new Map<Client, string>()
    const secrets: string[] = []
    let params: Record<string, string>

    before(async () => {
      t = await startTestApp(engine, { ADMIN_PASSWORD: PASSWORD })
      const a = t.project
      const b = await t.newProject('Project B')
      const sent = await t.ingest(batch('role-visit-1', [{ type: 'ERROR', message: 'TypeError: secret-looking message' }]))
      assert.equal(sent.statusCode, 200)
      const visit = json<{ sessionId: string }>(sent).sessionId
      secrets.push(visit, 'secret-looking message', a.name)
      const people: [Client, string, PersonInput][] = [
        ['viewer', 'viewer@example.com', { role: 'viewer', projects: [a.id] }],
        ['member', 'member@example.com', { role: 'member', projects: [a.id] }],
        ['admin', 'admin-a@example.com', { role: 'admin', projects: [a.id] }],
        ['otherViewer', 'other@example.com', { role: 'viewer', projects: [b.id] }],
      ]
      let victim = ''
      for (const [client, email, input] of people) {
        const invited = await invitePerson(t.app.db, CLI_ACTOR, email, input)
        await setPasswordWithLink(t.app.db, invited.token, `${email} password`, null)
        cookies.set(client, await signIn(email, `${email} password`))
        if (client === 'otherViewer') victim = invited.person.id
      }
      cookies.set('owner', await signIn('admin', PASSWORD))
      // Path parameters that name nothing where a call would change something for good: the role check comes first.
      params = { projectId: a.id, id: visit, chunkId: 'c_none', release: 'v1', webhookId: 'wh_none', commentId: 'cm_none', linkId: 'rl_none', userId: `${victim}x`, signInId: 'si_none', token: 'no-such-token' }
    })
    after(() => t.close())

    async function signIn(login: string, password: string): Promise<string> {
      const res = await t.app.inject({ method: 'POST', url: '/app/api/session', payload: { login, password }, headers: { 'x-sessionwatch': '1' } })
      assert.equal(res.statusCode, 204, res.body)
      return String(res.headers['set-cookie']).split(';')[0] ?? ''
    }

    it('the table names every route the server has', () => {
      assert.deepEqual(TABLE.map(([m, p]) => `${m ?? ''} ${p}`).sort(), Object.keys(ROUTE_ACCESS).sort())
    })

    it('answers each route as the table says: 401 signed out, 403 forbidden below its role, never a leak in the body', async () => {
      const wrong: string[] = []
      for (const [method, path, need] of TABLE) {
        const url = `/app/api${path.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(params[name] ?? name))}`
        for (const client of CLIENTS) {
          const cookie = cookies.get(client)
          const res = await t.app.inject({
            method, url, headers: { 'x-sessionwatch': '1', ...(cookie ? { cookie } : {}) },
            ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }),
          })
          const body = res.body
          const code = res.statusCode === 401 || res.statusCode === 403 ? (json<{ code?: string }>(res).code ?? '') : ''
          const got = res.statusCode === 403 && code === 'forbidden' ? 'forbidden' : res.statusCode === 401 && code === 'not_signed_in' ? 'not_signed_in' : 'allowed'
          const want = expected(need, client, path.includes(':projectId'))
          if (got !== want) wrong.push(`${method ?? ''} ${path} as ${client}: ${res.statusCode} ${code}, expected ${want}`)
          if (got !== 'allowed') {
            assert.deepEqual(Object.keys(json(res)).sort(), ['code', 'error', 'message', 'statusCode'], `${method ?? ''} ${path} as ${client}: the error alone`)
            for (const secret of secrets) assert.ok(!body.includes(secret), `${method ?? ''} ${path} as ${client} leaks ${secret}`)
          }
        }
      }
      assert.deepEqual(wrong, [])
    })
  })
}
