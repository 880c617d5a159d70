import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { AppError } from '../../../src/errors.ts'
import { openOidc, type OidcClient, type PendingSignIn } from '../../../src/sso/oidc.ts'
import type { OidcSettings } from '../../../src/sso/settings.ts'
import { signInAtProvider, startTestOidc, type TestOidc } from '../../helpers/oidc.ts'
import { startSilentServer } from '../../helpers/silent.ts'
import { OIDC_TIMEOUT_SECONDS } from '../../../src/sso/limits.ts'

const REDIRECT_URI = 'http://127.0.0.1:9/sso/callback'
const ACCOUNTS = {
  ana: { email: 'ana@example.com', name: 'Ana Admin', groups: ['member', 'admin'] },
  bo: { email: 'bo@example.com', emailVerified: false },
}

/** Holds a promise to an AppError of this status and code, naming `phrase` in its message. */
async function refused(promise: Promise<unknown>, statusCode: number, code: string, phrase: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`)
    assert.deepEqual([error.statusCode, error.code], [statusCode, code], error.message)
    assert.match(error.message, phrase)
    return true
  })
}

describe('OpenID Connect sign-in against a real provider', () => {
  let provider: TestOidc
  let oidc: OidcClient
  let settings: OidcSettings
  before(async () => {
    provider = await startTestOidc({ accounts: ACCOUNTS, redirectUri: REDIRECT_URI })
    settings = {
      issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret,
      allowedDomains: ['example.com'], defaultRole: 'viewer', roleClaim: 'groups',
    }
    oidc = openOidc(settings)
  })
  after(async () => {
    await provider.stop()
  })

  /** Starts a sign-in and plays the browser through the provider's forms: the callback URL and what was kept. */
  const signIn = async (login: string): Promise<{ callback: URL; pending: PendingSignIn }> => {
    const { url, state } = await oidc.start(REDIRECT_URI)
    return { callback: await signInAtProvider(url, login, REDIRECT_URI), pending: state }
  }

  it('signs in through the provider\'s login and consent, with PKCE S256, and returns the claims', async () => {
    const before = Date.now()
    const { url, state } = await oidc.start(REDIRECT_URI)
    const authorization = new URL(url)
    assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256')
    assert.equal(authorization.searchParams.get('state'), state.state)
    assert.equal(authorization.searchParams.get('nonce'), state.nonce)
    assert.equal(authorization.searchParams.get('scope'), 'openid email profile groups')
    assert.ok(state.expiresAt >= before + 10 * 60_000 && state.expiresAt <= Date.now() + 10 * 60_000)
    const callback = await signInAtProvider(url, 'ana', REDIRECT_URI)
    assert.deepEqual(await oidc.finish(callback, state), {
      subject: 'ana', email: 'ana@example.com', emailVerified: true, name: 'Ana Admin', roles: ['member', 'admin'],
    })
  })

  it('reads the callback\'s query whatever host it came through, and says when an email is not verified', async () => {
    const { callback, pending } = await signIn('bo')
    const throughProxy = new URL(`https://sw.example.com/sso/callback${callback.search}`)
    assert.deepEqual(await oidc.finish(throughProxy, pending), { subject: 'bo', email: 'bo@example.com', emailVerified: false, name: null, roles: [] })
  })

  it('refuses a tampered state, a replayed code and a wrong nonce', async () => {
    const { callback, pending } = await signIn('ana')
    const tampered = new URL(callback)
    tampered.searchParams.set('state', `${pending.state}x`)
    await refused(oidc.finish(tampered, pending), 400, 'invalid_parameter', /does not belong to the sign-in/)

    await oidc.finish(callback, pending)
    await refused(oidc.finish(callback, pending), 401, 'sign_in_failed', /did not accept the sign-in code \(invalid_grant/)

    const next = await signIn('ana')
    await refused(oidc.finish(next.callback, { ...next.pending, nonce: 'another-nonce' }), 401, 'sign_in_failed', /did not verify.*nonce/)
  })

  it('refuses a stolen code without its PKCE verifier, an error from the provider, and a sign-in past its 10 minutes', async () => {
    const { callback, pending } = await signIn('ana')
    const other = (await oidc.start(REDIRECT_URI)).state
    await refused(oidc.finish(callback, { ...pending, codeVerifier: other.codeVerifier }), 401, 'sign_in_failed', /invalid_grant/)

    const denied = new URL(REDIRECT_URI)
    denied.search = new URLSearchParams({ error: 'access_denied', error_description: 'End-User aborted interaction', state: pending.state, iss: provider.issuer }).toString()
    await refused(oidc.finish(denied, pending), 401, 'sign_in_failed', /refused the sign-in \(access_denied: End-User aborted/)

    const late = await signIn('ana')
    await refused(oidc.finish(late.callback, late.pending, late.pending.expiresAt + 1), 401, 'sign_in_failed', /over 10 minutes ago/)
  })

  it('answers 503 naming the issuer while the provider is down, and discovers again once it is back', async () => {
    const client = openOidc(settings)
    await provider.stop()
    try {
      const named = new RegExp(`identity provider ${provider.issuer.replace(/[.]/g, '\\.')} could not be reached`)
      await refused(client.start(REDIRECT_URI), 503, 'service_unavailable', named)
      await refused(client.start(REDIRECT_URI), 503, 'service_unavailable', named)
    } finally {
      await provider.start()
    }
    const { callback, pending } = await signIn('ana')
    assert.equal((await client.start(REDIRECT_URI)).url.startsWith(`${provider.issuer}/auth?`), true)
    assert.equal((await client.finish(callback, pending)).subject, 'ana', 'another client of the same provider redeems the code')
  })

  it(`gives up on a provider that does not answer after ${OIDC_TIMEOUT_SECONDS} s, with a 503`, async () => {
    const silent = await startSilentServer()
    try {
      const started = Date.now()
      await refused(openOidc({ ...settings, issuer: `http://127.0.0.1:${silent.port}` }).start(REDIRECT_URI), 503, 'service_unavailable', /timed out/)
      const took = Date.now() - started
      assert.ok(took >= OIDC_TIMEOUT_SECONDS * 1000 - 50 && took < OIDC_TIMEOUT_SECONDS * 1000 + 3000, `${took} ms`)
    } finally {
      await silent.stop()
    }
  })
})
