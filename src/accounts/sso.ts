import type { Kysely } from 'kysely'
import { Value } from 'typebox/value'
import type { Database } from '../database.ts'
import { AppError } from '../errors.ts'
import { audit } from '../audit/service.ts'
import { PendingSignIn, type OidcClient, type SignedInIdentity } from '../sso/oidc.ts'
import { emailAllowed, roleFromClaim } from '../sso/rules.ts'
import type { OidcSettings } from '../sso/settings.ts'
import { newId, sha256Hex } from '../util/ids.ts'
import * as store from './store.ts'

/** Starts a single sign-on: where to send the browser. What its callback is checked against stays in the database. */
export async function startSso(db: Kysely<Database>, oidc: OidcClient, redirectUri: string, now = Date.now()): Promise<string> {
  const { url, state } = await oidc.start(redirectUri, now)
  await store.insertSsoState(db, { state_hash: sha256Hex(state.state), pending: JSON.stringify(state), expires_at: state.expiresAt }, now)
  return url
}

const refused = (message: string) => new AppError(401, 'sign_in_failed', message)

/**
 * Finishes a single sign-on: the account the provider vouched for, matched by its subject, else by its address
 * (linking it), else made with OIDC_DEFAULT_ROLE on every project. OIDC_ALLOWED_DOMAINS applies to every sign-in;
 * with OIDC_ROLE_CLAIM the claim sets the person's role at each sign-in, the highest role it names winning.
 */
export async function finishSso(
  db: Kysely<Database>, oidc: OidcClient, settings: OidcSettings, callbackUrl: URL, ip: string, now = Date.now(),
): Promise<store.UserRow> {
  const state = callbackUrl.searchParams.get('state') ?? ''
  const kept = await store.takeSsoState(db, sha256Hex(state))
  if (kept === undefined) throw new AppError(400, 'invalid_parameter', 'This sign-in was finished already or has expired: start again from the sign-in page.', 'state')
  const identity = await oidc.finish(callbackUrl, Value.Parse(PendingSignIn, JSON.parse(kept)), now)
  return db.transaction().execute((trx) => signInIdentity(trx, settings, identity, ip, now))
}

async function signInIdentity(trx: Kysely<Database>, settings: OidcSettings, identity: SignedInIdentity, ip: string, now: number): Promise<store.UserRow> {
  const email = identity.email.trim().toLowerCase()
  const actor = { userId: null, name: email, ip }
  if (!emailAllowed(email, settings.allowedDomains)) {
    await audit(trx, actor, 'sign_in_failed', { detail: { via: 'sso', reason: 'domain not allowed' } }, now)
    throw refused(`${email} may not sign in here: single sign-on takes addresses at ${settings.allowedDomains.join(', ')}.`)
  }
  if (identity.emailVerified === false) throw refused(`Your identity provider has not verified ${email}: verify it there, then sign in again.`)
  const claimed = settings.roleClaim === null ? null : roleFromClaim(identity.roles, settings.defaultRole)
  let user = await store.findUserBySubject(trx, identity.subject) ?? await store.findUserByEmail(trx, email)
  if (!user) {
    user = { id: newId('u_', 12), email, name: identity.name, password_hash: null, role: claimed ?? settings.defaultRole, created_at: now, last_sign_in_at: null, oidc_subject: identity.subject }
    await store.insertUser(trx, user)
    await audit(trx, { ...actor, userId: user.id }, 'user_invited', { target: email, detail: { via: 'sso', role: user.role } }, now)
    return user
  }
  if (user.oidc_subject !== null && user.oidc_subject !== identity.subject) throw refused(`${email} is linked to another identity at the provider.`)
  const patch = { oidc_subject: identity.subject, ...(claimed !== null && claimed !== user.role ? { role: claimed } : {}) }
  await store.updateUser(trx, user.id, patch)
  if (patch.role !== undefined) await audit(trx, { ...actor, userId: user.id }, 'role_changed', { target: email, detail: { from: user.role, role: patch.role, via: 'sso' } }, now)
  return { ...user, ...patch }
}
