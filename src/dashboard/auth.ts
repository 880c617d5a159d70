import { createHash, createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import type { Db } from '../database.ts'
import { claimOnce, metaValue } from '../db/meta.ts'
import { sha256Hex } from '../util/ids.ts'
import * as store from './store.ts'

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>

const PASSWORD_KEY = 'admin_password'
const DEVICE_SECRET_KEY = 'admin_device_secret'
/** A dashboard sign-in lasts a week. */
export const SESSION_MS = 7 * 24 * 3600 * 1000

/** The dashboard's admin credentials and sign-ins, as the sign-in and cookie checks need them. */
export interface AdminAuth {
  /** Whether a password is set at all (env or database). */
  configured(): Promise<boolean>
  verify(password: string): Promise<boolean>
  /** Starts a sign-in valid until now + SESSION_MS; returns the cookie's token. */
  issue(now: number): Promise<string>
  valid(token: string | undefined, now: number): Promise<boolean>
  /** Ends the sign-in of this token (signing out), in every process. */
  revoke(token: string | undefined): Promise<void>
  /** A new device cookie's value for a browser that signed in: a random id signed by this install. */
  newDevice(): Promise<string>
  /** The id of a device cookie this install signed, or null for none, a forged or another install's one. */
  deviceOf(value: string | undefined): Promise<string | null>
}

const sha256 = (text: string) => createHash('sha256').update(text).digest()

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scrypt(password, salt, 32)
  return `scrypt$${salt.toString('base64')}$${key.toString('base64')}`
}

async function matches(stored: string, password: string): Promise<boolean> {
  const [scheme, salt, key] = stored.split('$')
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false
  const expected = Buffer.from(key, 'base64')
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length)
  return timingSafeEqual(actual, expected)
}

/** A cookie's token: 256 random bits, base64url. Only its SHA-256 is stored. */
const TOKEN = /^[\w-]{43}$/

/**
 * The password comes from ADMIN_PASSWORD when set, else from the database (generated on first start, kept as an
 * scrypt hash). A sign-in is a row of admin_sessions holding the digest of the cookie's random token and a tag of
 * the password it was made with, so signing out deletes it and a changed password ends every sign-in.
 */
export function adminAuth(db: Db, envPassword: string | null): AdminAuth {
  const stored = () => metaValue(db, PASSWORD_KEY)
  const passwordTag = async () => (envPassword === null ? sha256Hex(`db:${(await stored()) ?? ''}`) : sha256Hex(`env:${envPassword}`))
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
    configured: async () => envPassword !== null || (await stored()) !== undefined,
    async verify(password) {
      if (envPassword !== null) return timingSafeEqual(sha256(password), sha256(envPassword))
      const hash = await stored()
      return hash !== undefined && matches(hash, password)
    },
    async issue(now) {
      const token = randomBytes(32).toString('base64url')
      await store.insertAdminSession(db, { token_hash: sha256Hex(token), password_tag: await passwordTag(), created_at: now, expires_at: now + SESSION_MS })
      return token
    },
    async valid(token, now) {
      const hash = tokenHash(token)
      const row = hash === null ? undefined : await store.findAdminSession(db, hash)
      return row !== undefined && row.expires_at > now && row.password_tag === (await passwordTag())
    },
    async revoke(token) {
      const hash = tokenHash(token)
      if (hash !== null) await store.deleteAdminSession(db, hash)
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

/** A readable random password: 20 characters from a 32-letter alphabet without look-alikes (100 bits). */
export function generatePassword(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789A'
  return Array.from(randomBytes(20), (b) => alphabet[b % alphabet.length]).join('')
}

/**
 * Sets a new generated password when none is stored yet (first start) or when `reset` is asked;
 * returns it so the caller prints it once, or null when one was already set.
 */
export async function ensurePassword(db: Db, opts: { reset?: boolean } = {}): Promise<string | null> {
  // Every start asks; hashing (scrypt, tens of ms) only when there is a password to set.
  if (!opts.reset && (await metaValue(db, PASSWORD_KEY)) !== undefined) return null
  const password = generatePassword()
  const hash = await hashPassword(password)
  if (opts.reset) await db.deleteFrom('meta').where('key', '=', PASSWORD_KEY).execute()
  // Several processes starting at once: one claim wins, and only its password is printed.
  if (!(await claimOnce(db, PASSWORD_KEY, hash))) return null
  // Their password tag already ends the old sign-ins; the rows go too rather than wait for their expiry.
  if (opts.reset) await store.deleteAllAdminSessions(db)
  return password
}
