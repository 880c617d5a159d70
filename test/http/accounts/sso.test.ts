import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { invitePerson, setPasswordWithLink } from '../../../src/accounts/service.ts'
import { CLI_ACTOR } from '../../../src/audit/service.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { signInAtProvider, startTestOidc, type TestOidc } from '../../helpers/oidc.ts'

const BASE = 'http://sw.test'
const CALLBACK = `${BASE}/app/api/sso/callback`
const ACCOUNTS = {
  ana: { email: 'ana@example.com', name: 'Ana', groups: ['member', 'admin'] },
  vic: { email: 'Vic@Example.com' },
  eve: { email: 'eve@evil-example.com' },
  ida: { email: 'ida@example.com' },
  una: { email: 'una@example.com', emailVerified: false },
}

for (const engine of testEngines()) {
  describe(`single sign-on through a real OpenID provider [${engine}]`, () => {
    let provider: TestOidc
    let t: TestApp
    before(async () => {
      provider = await startTestOidc({ accounts: ACCOUNTS, redirectUri: CALLBACK })
      t = await startTestApp(engine, {
        PUBLIC_URL: BASE, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_ALLOWED_DOMAINS: 'example.com', OIDC_ROLE_CLAIM: 'groups', PASSWORD_LOGIN: 'false', ADMIN_PASSWORD: 'owner password here',
      })
    })
    after(async () => {
      await t.close()
      await provider.stop()
    })

    /** Starts at the app, plays the browser at the provider, and hands the callback to the app: its answer. */
    async function signIn(login: string) {
      const started = await t.app.inject({ url: '/app/api/sso/start' })
      assert.equal(started.statusCode, 302, started.body)
      const callback = await signInAtProvider(String(started.headers.location), login, CALLBACK)
      const answer = await t.app.inject({ url: `${callback.pathname}${callback.search}` })
      return { answer, callback }
    }
    const me = (cookie: string) => t.app.inject({ url: '/app/api/me', headers: { cookie } })
    const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0] ?? ''

    it('says on the sign-in page that single sign-on is on and passwords are off', async () => {
      assert.deepEqual(json(await t.app.inject({ url: '/app/api/sign-in-options' })), { sso: true, passwordLogin: false })
    })

    it('a first sign-in makes the account, with the role the claim names (the highest) or OIDC_DEFAULT_ROLE', async () => {
      const { answer } = await signIn('ana')
      assert.equal(answer.statusCode, 302, answer.body)
      assert.equal(answer.headers.location, '/app#/')
      const ana = json<{ email: string; role: string }>(await me(cookieOf(answer)))
      assert.deepEqual([ana.email, ana.role], ['ana@example.com', 'admin'])
      const vic = json<{ email: string; role: string }>(await me(cookieOf((await signIn('vic')).answer)))
      assert.deepEqual([vic.email, vic.role], ['vic@example.com', 'viewer'], 'no claim: the default role, the address lower-cased')
      const again = await signIn('ana')
      assert.equal(json<{ id: string }>(await me(cookieOf(again.answer))).id, json<{ id: string }>(await me(cookieOf(answer))).id, 'the same account next time')
    })

    it('refuses an address outside OIDC_ALLOWED_DOMAINS or unverified, making no account, and a replayed callback', async () => {
      const { answer, callback } = await signIn('eve')
      assert.equal(answer.statusCode, 302)
      assert.match(decodeURIComponent(String(answer.headers.location)), /^\/app#\/login\?error=eve@evil-example\.com may not sign in here: single sign-on takes addresses at example\.com\./)
      assert.equal(answer.headers['set-cookie'], undefined)
      const unverified = (await signIn('una')).answer
      assert.match(decodeURIComponent(String(unverified.headers.location)), /has not verified una@example\.com/)
      const people = await t.app.db.selectFrom('users').select('email').execute()
      assert.ok(!people.some((p) => p.email === 'eve@evil-example.com' || p.email === 'una@example.com'))
      const replayed = await t.app.inject({ url: `${callback.pathname}${callback.search}` })
      assert.match(decodeURIComponent(String(replayed.headers.location)), /finished already or has expired/)
    })

    it('links an invited person by address, and the owner still signs in with a password', async () => {
      const invited = await invitePerson(t.app.db, CLI_ACTOR, 'ida@example.com', { role: 'member' })
      const { answer } = await signIn('ida')
      assert.equal(json<{ id: string }>(await me(cookieOf(answer))).id, invited.person.id)
      const owner = await t.app.inject({ method: 'POST', url: '/app/api/session', payload: { login: 'admin', password: 'owner password here' }, headers: { 'x-sessionwatch': '1' } })
      assert.equal(owner.statusCode, 204, owner.body)
      const lines = await t.app.db.selectFrom('audit_log').select(['action', 'actor']).where('actor', '=', 'ida@example.com').execute()
      assert.ok(lines.some((l) => l.action === 'sign_in'), 'the sign-in is in the audit trail')
    })

    it('a member with a password is refused it while PASSWORD_LOGIN is off', async () => {
      const invited = await invitePerson(t.app.db, CLI_ACTOR, 'pat@example.com', { role: 'member' })
      await setPasswordWithLink(t.app.db, invited.token, 'pat password 1', null)
      const refused = await t.app.inject({ method: 'POST', url: '/app/api/session', payload: { login: 'pat@example.com', password: 'pat password 1' }, headers: { 'x-sessionwatch': '1' } })
      assert.equal(refused.statusCode, 403)
      assert.match(json(refused).message as string, /PASSWORD_LOGIN=false/)
    })
  })
}
