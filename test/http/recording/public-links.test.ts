import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { InjectOptions } from 'fastify'
import { invitePerson, setPasswordWithLink } from '../../../src/accounts/service.ts'
import { CLI_ACTOR } from '../../../src/audit/service.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'
import { chunkUpload, rrwebEvents } from '../../helpers/recording.ts'

const PASSWORD = 'public links owner password'

interface Link { id: string; sessionId: string; createdBy: { email: string } | null; active: boolean; revokedAt: string | null }

for (const engine of testEngines()) {
  describe(`public links to one visit's replay [${engine}]`, () => {
    let t: TestApp
    const cookies = new Map<string, string>()
    let visit = ''
    before(async () => {
      t = await startTestApp(engine, { ADMIN_PASSWORD: PASSWORD, PUBLIC_URL: 'https://sw.example.com' })
      cookies.set('owner', await signIn('admin', PASSWORD))
      for (const [email, role] of [['member@example.com', 'member'], ['other@example.com', 'member'], ['viewer@example.com', 'viewer']] as const) {
        const invited = await invitePerson(t.app.db, CLI_ACTOR, email, { role, projects: [t.project.id] })
        await setPasswordWithLink(t.app.db, invited.token, `${email} pw`, null)
        cookies.set(email, await signIn(email, `${email} pw`))
      }
      const sent = await t.ingest(batch('shared-visit', [{ type: 'ERROR', message: 'TypeError: private detail' }], {
        user: { id: 'customer-42', email: 'customer@shop.example' }, recording: [chunkUpload('r0', rrwebEvents(Date.now() - 1000))],
      }))
      assert.equal(sent.statusCode, 200, sent.body)
      visit = json<{ sessionId: string }>(sent).sessionId
    })
    after(() => t.close())

    async function signIn(login: string, password: string): Promise<string> {
      const res = await t.app.inject({ method: 'POST', url: '/app/api/session', payload: { login, password }, headers: { 'x-sessionwatch': '1' } })
      assert.equal(res.statusCode, 204, res.body)
      return String(res.headers['set-cookie']).split(';')[0] ?? ''
    }
    const call = (who: string, method: InjectOptions['method'], url: string, payload?: unknown) =>
      t.app.inject({ method, url: `/app/api${url}`, headers: { cookie: cookies.get(who) ?? '', 'x-sessionwatch': '1' }, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) })
    const setting = (on: boolean) => call('owner', 'PATCH', `/projects/${t.project.id}`, { publicReplays: on })
    const makeLink = (who: string, payload: unknown = {}, session = visit) => call(who, 'POST', `/projects/${t.project.id}/sessions/${session}/public-link`, payload)
    const tokenOf = (url: string) => url.split('/').at(-1) ?? ''
    const open = (token: string, path = '/recording') => t.app.inject({ method: 'GET', url: `/app/api/public-replays/${token}${path}` })
    const page = (token: string) => t.app.inject({ method: 'GET', url: `/r/${token}` })

    it('is off by default: nobody can make a link until an admin turns the setting on', async () => {
      const off = await makeLink('member@example.com')
      assert.deepEqual([off.statusCode, json(off).code], [409, 'public_replays_off'])
      const turned = await setting(true)
      assert.equal(turned.statusCode, 200, turned.body)
      assert.equal(json(turned).publicReplays, true)
    })

    it('a link shows that replay alone, for the days asked, and each view is audited', async () => {
      const made = await makeLink('member@example.com', { days: 2 })
      assert.equal(made.statusCode, 201, made.body)
      const { url, expiresAt } = json<{ url: string; expiresAt: string }>(made)
      assert.match(url, /^https:\/\/sw\.example\.com\/r\/[\w-]{43}$/)
      assert.ok(Math.abs(Date.parse(expiresAt) - (Date.now() + 2 * 86_400_000)) < 60_000)
      assert.equal(json<{ expiresAt: string }>(await makeLink('member@example.com')).expiresAt.slice(0, 10),
        new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10), 'seven days by default')
      assert.equal((await makeLink('member@example.com', { days: 31 })).statusCode, 400)
      assert.equal((await makeLink('member@example.com', {}, 'no-such-visit')).statusCode, 404)

      const token = tokenOf(url)
      const html = await page(token)
      assert.equal(html.statusCode, 200)
      assert.match(String(html.headers['content-security-policy']), /script-src 'self'/)
      const recording = await open(token)
      assert.equal(recording.statusCode, 200, recording.body)
      const body = json<{ recording: { available: boolean }; chunks: { id: string }[] }>(recording)
      assert.deepEqual(Object.keys(body).sort(), ['chunks', 'recording'])
      for (const secret of [t.project.id, t.project.name, 'customer', 'private detail', visit]) assert.ok(!recording.body.includes(secret), `no ${secret}`)
      const chunk = await open(token, `/recording/chunks/${body.chunks[0]?.id ?? ''}`)
      assert.equal(chunk.statusCode, 200)
      assert.ok(Array.isArray(JSON.parse(chunk.body)))
      // Path parameters out of bounds answer 404 like an unknown token, as every route's do.
      for (const bad of ['short', 'x'.repeat(44), `${'-'.repeat(42)}!`, 'A'.repeat(43)]) assert.equal((await open(encodeURIComponent(bad))).statusCode, 404, bad)

      const lines = json<{ lines: { action: string; actor: string; target: string }[] }>(await call('owner', 'GET', '/audit')).lines
      assert.deepEqual(lines.filter((l) => l.action === 'public_replay_viewed').map((l) => [l.actor, l.target]), [['public link', visit]])
      assert.equal(lines.filter((l) => l.action === 'public_link_created').length, 2)
    })

    it('lists links to admins and their makers, revoked by an admin or the maker alone', async () => {
      const token = tokenOf(json<{ url: string }>(await makeLink('other@example.com')).url)
      const mine = json<{ links: Link[] }>(await call('other@example.com', 'GET', `/projects/${t.project.id}/public-links`)).links
      assert.deepEqual(mine.map((l) => [l.createdBy?.email, l.active]), [['other@example.com', true]])
      const all = json<{ links: Link[] }>(await call('owner', 'GET', `/projects/${t.project.id}/public-links`)).links
      assert.equal(all.length, 3)
      const id = mine[0]?.id ?? ''
      const notTheirs = await call('member@example.com', 'DELETE', `/projects/${t.project.id}/public-links/${id}`)
      assert.deepEqual([notTheirs.statusCode, json(notTheirs).code], [403, 'forbidden'])
      assert.equal((await call('other@example.com', 'DELETE', `/projects/${t.project.id}/public-links/${id}`)).statusCode, 204)
      assert.equal((await open(token)).statusCode, 404)
      assert.equal((await page(token)).statusCode, 404)
      const after = json<{ links: Link[] }>(await call('owner', 'GET', `/projects/${t.project.id}/public-links`)).links.find((l) => l.id === id)
      assert.deepEqual([after?.active, typeof after?.revokedAt], [false, 'string'])
    })

    it('turning the setting off stops every link at once; erasing the visit removes its links', async () => {
      const token = tokenOf(json<{ url: string }>(await makeLink('member@example.com')).url)
      assert.equal((await open(token)).statusCode, 200)
      assert.equal((await setting(false)).statusCode, 200)
      assert.equal((await open(token)).statusCode, 404)
      assert.equal((await page(token)).statusCode, 404)
      assert.equal((await setting(true)).statusCode, 200)
      assert.equal((await open(token)).statusCode, 200, 'on again, an unexpired link works again')
      const erased = await call('owner', 'POST', `/projects/${t.project.id}/erase`, { sessionId: visit })
      assert.equal(erased.statusCode, 200, erased.body)
      assert.equal((await open(token)).statusCode, 404)
      assert.deepEqual(json<{ links: Link[] }>(await call('owner', 'GET', `/projects/${t.project.id}/public-links`)).links, [])
    })
  })
}
