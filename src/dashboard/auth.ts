import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'
import { claimOnce, metaValue } from '../db/meta.ts'
import { accessOf, ADMIN_USER_KEY, type Access } from '../accounts/service.ts'
import { checkPassword, hashPassword } from '../accounts/passwords.ts'
import * as accounts from '../accounts/store.ts'
import { audit, type Actor } from '../audit/service.ts'
import { newId, sha256Hex } from '../util/ids.ts'

const DEVICE_SECRET_KEY = 'admin_device_secret'
/** A dashboard sign-in lasts a week. */
export const SESSION_MS = 7 * 24 * 3600 * 1000
/** Checked when nobody has the login given, so that a wrong login takes as long as a wrong password. */
const NOBODY = '$argon2id$v=19$m=19456,t=2,p=1$d/YswSOZmGK91b2SRqyAkQ$HaNM8CwSgw3LCKRpa6iV05LnycF0AcOfj8MtQ0PzPW0'

/** A signed-in browser: who it is and what they may do. */
export interface SignedIn {
  access: Access
  signInId: string
  actor: Actor
}

/** The dashboard's sign-ins, as the sign-in route and the cookie check need them. */
export interface DashboardAuth {
  /** The account a login (email, or the first owner's name) and password sign in, or null; upgrades an old hash. */
  verify(login: string, password: string): Promise<accounts.UserRow | null>
  /** Starts a sign-in valid until now + SESSION_MS, with its audit line; returns the cookie's token. */
  issue(user: accounts.UserRow, now: number, client: { ip: string; userAgent: string | null }): Promise<string>
  signedIn(token: string | undefined, now: number, ip: string): Promise<SignedIn | null>
  /** Ends the sign-in of this token (signing out), in every process. */
  revoke(token: string | undefined): Promise<void>
  /** A new device cookie's value for a browser that signed in: a random id signed by this install. */
  newDevice(): Promise<string>
  /** The id of a device cookie this install signed, or null for none, a forged or another install's one. */
  deviceOf(value: string | undefined): Promise<string | null>
}

const sha256 = (text: string) => createHash('sha256').update(text).digest()

/** A cookie's token: 256 random bits, base64url. Only its SHA-256 is stored. */
const TOKEN = /^[\w-]{43}$/

/**
 * Sign-ins of accounts. The first owner's password is ADMIN_PASSWORD when set, else its stored hash. A sign-in is a
 * row of sign_ins holding the digest of the cookie's random token and a tag of the password it was made with, so
 * signing out deletes it and a changed password (or ADMIN_PASSWORD) ends every sign-in made with the old one.
 */
export function dashboardAuth(db: Kysely<Database>, envPassword: string | null): DashboardAuth {
  const isFirstOwner = async (user: accounts.UserRow) => envPassword !== null && (await metaValue(db, ADMIN_USER_KEY)) === user.id
  const passwordTag = async (user: accounts.UserRow) =>
    (await isFirstOwner(user)) ? sha256Hex(`env:${envPassword ?? ''}`) : sha256Hex(`db:${user.password_hash ?? ''}`)
  const tokenHash = (token: string | undefined) => (token !== undefined && TOKEN.test(token) ? sha256Hex(token) : null)
  let deviceSecret: Promise<string> | null = null
  const signDevice = async (id: string) => {
    deviceSecret ??= (async () => {
      await claimOnce(db, DEVICE_SECRET_KEY, randomBytes(32).toString('hex'))
      return (await metaValue(db, DEVICE_SECRET_KEY)) ?? ''
    })()
    return createHmac('sha256', await deviceSecret).update(id).digest('base64url')
  }

  return {
    async verify(login, password) {
      const user = await accounts.findUserByEmail(db, login.trim())
      if (!user) {
        await checkPassword(NOBODY, password)
        return null
      }
      if (await isFirstOwner(user)) return timingSafeEqual(sha256(password), sha256(envPassword ?? '')) ? user : null
      const checked = await checkPassword(user.password_hash, password)
      if (!checked.ok) return null
      if (!checked.upgrade) return user
      const upgraded = { ...user, password_hash: await hashPassword(password) }
      await accounts.updateUser(db, user.id, { password_hash: upgraded.password_hash })
      return upgraded
    },
    async issue(user, now, client) {
      const token = randomBytes(32).toString('base64url')
      const tag = await passwordTag(user)
      await db.transaction().execute(async (trx) => {
        await accounts.insertSignIn(trx, {
          id: newId('si_', 12), token_hash: sha256Hex(token), user_id: user.id, password_tag: tag, created_at: now, expires_at: now + SESSION_MS,
          user_agent: client.userAgent?.slice(0, 300) ?? null, ip: client.ip,
        })
        await accounts.updateUser(trx, user.id, { last_sign_in_at: now })
        await audit(trx, { userId: user.id, name: user.email, ip: client.ip }, 'sign_in', {}, now)
      })
      return token
    },
    async signedIn(token, now, ip) {
      const hash = tokenHash(token)
      const row = hash === null ? undefined : await accounts.findSignIn(db, hash)
      if (row === undefined || row.expires_at <= now) return null
      const user = await accounts.findUserById(db, row.user_id)
      if (!user || row.password_tag !== (await passwordTag(user))) return null
      return { access: await accessOf(db, user), signInId: row.id, actor: { userId: user.id, name: user.email, ip } }
    },
    async revoke(token) {
      const hash = tokenHash(token)
      if (hash !== null) await accounts.deleteSignIns(db, { tokenHash: hash })
    },
    async newDevice() {
      const id = randomBytes(16).toString('base64url')
      return `${id}.${await signDevice(id)}`
    },
    async deviceOf(value) {
      const m = value === undefined ? null : /^([\w-]{22})\.([\w-]{43})$/.exec(value)
      if (!m?.[1] || !m[2]) return null
      const expected = Buffer.from(await signDevice(m[1]))
      const given = Buffer.from(m[2])
      return expected.length === given.length && timingSafeEqual(expected, given) ? m[1] : null
    },
  }
}
