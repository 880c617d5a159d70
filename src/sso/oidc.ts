import * as client from 'openid-client'
import Type, { type Static } from 'typebox'
import { AppError } from '../errors.ts'
import { OIDC_TIMEOUT_SECONDS, PENDING_SIGN_IN_MS } from './limits.ts'
import type { OidcSettings } from './settings.ts'

/**
 * What a started sign-in's callback is checked against: the caller keeps it between `start` and `finish` (a row, or a
 * short-lived cookie that is signed, and encrypted since it holds the PKCE verifier) and hands it back whole.
 */
export const PendingSignIn = Type.Object(
  {
    state: Type.String({ minLength: 1, maxLength: 200 }),
    nonce: Type.String({ minLength: 1, maxLength: 200 }),
    codeVerifier: Type.String({ minLength: 43, maxLength: 128 }),
    /** The callback address the provider was told; the code is redeemed for exactly this address. */
    redirectUri: Type.String({ minLength: 1, maxLength: 2000 }),
    /** Milliseconds since the epoch after which `finish` refuses the callback. */
    expiresAt: Type.Integer(),
  },
  { additionalProperties: false },
)
export type PendingSignIn = Static<typeof PendingSignIn>

/** Who signed in, as the provider vouches for them. */
export interface SignedInIdentity {
  /** The provider's stable id of the person (`sub`): match accounts on it with the issuer, not on the email. */
  readonly subject: string
  readonly email: string
  /** Whether the provider checked the address belongs to them (`email_verified`); null when it does not say. */
  readonly emailVerified: boolean | null
  readonly name: string | null
  /** The strings of the OIDC_ROLE_CLAIM claim ([] without one): `roleFromClaim` turns them into a role. */
  readonly roles: readonly string[]
}

export interface OidcClient {
  /** Where to send the browser to sign in, and what to keep until its callback. */
  start(redirectUri: string, now?: number): Promise<{ url: string; state: PendingSignIn }>
  /**
   * Redeems the callback (the full URL the provider redirected to, any host: only its query is read) for the
   * identity, with PKCE, state and nonce checked. Throws AppError: 400 `invalid_parameter` for a callback that is not
   * this sign-in's, 401 `sign_in_failed` for a refusal or a token that does not verify, 503 when the provider is down.
   */
  finish(callbackUrl: URL, pending: PendingSignIn, now?: number): Promise<SignedInIdentity>
}

/**
 * A client of the configured provider. Nothing is fetched until the first sign-in; the discovered metadata is kept,
 * and a failed discovery is tried again at the next sign-in rather than remembered.
 */
export function openOidc(settings: OidcSettings): OidcClient {
  let discovered: Promise<client.Configuration> | null = null
  const issuer = new URL(settings.issuer)
  const configuration = (): Promise<client.Configuration> => {
    discovered ??= client.discovery(issuer, settings.clientId, settings.clientSecret, client.ClientSecretBasic(settings.clientSecret), {
      timeout: OIDC_TIMEOUT_SECONDS,
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the operator names the issuer: one on a trusted network may be plain http
      execute: issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
    }).catch((error: unknown) => {
      discovered = null
      throw unreachable(settings.issuer, error)
    })
    return discovered
  }

  return {
    async start(redirectUri, now = Date.now()) {
      const config = await configuration()
      const codeVerifier = client.randomPKCECodeVerifier()
      const state = client.randomState()
      const nonce = client.randomNonce()
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: scopes(config.serverMetadata().scopes_supported, settings.roleClaim),
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      })
      return { url: url.href, state: { state, nonce, codeVerifier, redirectUri, expiresAt: now + PENDING_SIGN_IN_MS } }
    },

    async finish(callbackUrl, pending, now = Date.now()) {
      if (now > pending.expiresAt) {
        throw new AppError(401, 'sign_in_failed', `This sign-in was started over ${PENDING_SIGN_IN_MS / 60_000} minutes ago: sign in again.`)
      }
      const params = callbackUrl.searchParams
      if (params.get('state') !== pending.state) {
        throw new AppError(400, 'invalid_parameter', 'This sign-in answer does not belong to the sign-in this browser started: sign in again.', 'state')
      }
      if (!params.has('code') && !params.has('error')) {
        throw new AppError(400, 'invalid_parameter', 'The identity provider\'s answer carries no code: sign in again.', 'code')
      }
      const config = await configuration()
      // The code is redeemed for the address the provider was told, whatever host or proxy the callback came through.
      const current = new URL(pending.redirectUri)
      current.search = params.toString()
      try {
        const tokens = await client.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        })
        const idClaims = tokens.claims()
        if (!idClaims) throw new AppError(401, 'sign_in_failed', 'The identity provider sent no ID token: sign in again.')
        const userinfo = config.serverMetadata().userinfo_endpoint
          ? await client.fetchUserInfo(config, tokens.access_token, idClaims.sub) : {}
        return identity({ ...idClaims, ...userinfo }, settings.roleClaim)
      } catch (error) {
        throw refusal(settings.issuer, error)
      }
    },
  }
}

/** The scopes asked for: openid, email, profile, and a scope named as the role claim when the provider lists one. */
function scopes(supported: readonly string[] | undefined, roleClaim: string | null): string {
  // A provider may refuse a scope it does not know, and many send a role claim with no scope of its own.
  const role = roleClaim !== null && supported?.includes(roleClaim) ? [roleClaim] : []
  return ['openid', 'email', 'profile', ...role].join(' ')
}

function identity(claims: Record<string, unknown>, roleClaim: string | null): SignedInIdentity {
  const { sub, email, email_verified: emailVerified, name } = claims
  if (typeof sub !== 'string' || sub === '') throw new AppError(401, 'sign_in_failed', 'The identity provider named no subject: sign in again.')
  if (typeof email !== 'string' || email === '') {
    throw new AppError(401, 'sign_in_failed', 'The identity provider sent no email address: its client for Sessionwatch must release the email scope.')
  }
  const raw = roleClaim ? claims[roleClaim] : undefined
  const roles = (Array.isArray(raw) ? raw : [raw]).filter((r): r is string => typeof r === 'string')
  return {
    subject: sub,
    email,
    emailVerified: emailVerified === undefined ? null : emailVerified === true || emailVerified === 'true',
    name: typeof name === 'string' && name !== '' ? name : null,
    roles,
  }
}

const detail = (error: unknown): string => {
  const cause = error instanceof Error ? error.cause : undefined
  const own = error instanceof Error ? error.message : String(error)
  if (cause instanceof Error) return `${own}: ${cause.message}`
  if (typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string') return `${own} (${cause.code})`
  return own
}

const unreachable = (issuer: string, error: unknown): AppError =>
  new AppError(503, 'service_unavailable', `The identity provider ${issuer} could not be reached (${detail(error)}): try again shortly.`)

/** What went wrong redeeming a callback, as an answer a person can act on. */
function refusal(issuer: string, error: unknown): unknown {
  if (error instanceof AppError) return error
  if (error instanceof client.AuthorizationResponseError) {
    const why = error.error_description ? `${error.error}: ${error.error_description}` : error.error
    return new AppError(401, 'sign_in_failed', `The identity provider refused the sign-in (${why}).`)
  }
  if (error instanceof client.ResponseBodyError) {
    if (error.status >= 500) return unreachable(issuer, error)
    const why = error.error_description ? `${error.error}: ${error.error_description}` : error.error
    return new AppError(401, 'sign_in_failed', `The identity provider did not accept the sign-in code (${why}); it may have been used already: sign in again.`)
  }
  if (error instanceof client.ClientError) {
    if (['OAUTH_TIMEOUT', 'OAUTH_ABORT', 'OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON'].includes(error.code ?? '')) return unreachable(issuer, error)
    return new AppError(401, 'sign_in_failed', `The identity provider's answer did not verify (${detail(error)}): sign in again.`)
  }
  // fetch() rejects with a TypeError when the connection fails.
  if (error instanceof TypeError && error.message === 'fetch failed') return unreachable(issuer, error)
  return error
}
