import { createHash, createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import type { Db } from '../db/database.ts'
import { claimOnce } from '../db/meta.ts'

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>

const PASSWORD_KEY = 'admin_password'
const SECRET_KEY = 'admin_session_secret'
/** A dashboard sign-in lasts a week. */
export const SESSION_MS = 7 * 24 * 3600 * 1000

/** The dashboard's admin credentials, as the sign-in and cookie checks need them. */
export interface AdminAuth {
  /** Whether a password is set at all (env or database). */
  configured(): Promise<boolean>
  verify(password: string): Promise<boolean>
  /** A signed session token valid until now + SESSION_MS. */
  issue(now: number): Promise<string>
  valid(token: string | undefined, now: number): Promise<boolean>
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

const readMeta = async (db: Db, key: string) =>
  (await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst())?.value

/**
 * The password comes from ADMIN_PASSWORD when set, else from the database (generated on first
 * start, kept as an scrypt hash). Session tokens are HMACs keyed by a per-install secret and the
 * password itself, so changing the password signs every browser out.
 */
export function adminAuth(db: Db, envPassword: string | null): AdminAuth {
  const stored = () => readMeta(db, PASSWORD_KEY)
  let secret: Promise<string> | null = null
  const sessionSecret = () => (secret ??= (async () => {
    await claimOnce(db, SECRET_KEY, randomBytes(32).toString('hex'))
    return (await readMeta(db, SECRET_KEY)) ?? ''
  })())
  const signingKey = async () => `${await sessionSecret()}:${envPassword === null ? (await stored()) ?? '' : sha256(envPassword).toString('hex')}`
  const sign = async (expires: number) => createHmac('sha256', await signingKey()).update(String(expires)).digest('base64url')

  return {
    configured: async () => envPassword !== null || (await stored()) !== undefined,
    async verify(password) {
      if (envPassword !== null) return timingSafeEqual(sha256(password), sha256(envPassword))
      const hash = await stored()
      return hash !== undefined && matches(hash, password)
    },
    async issue(now) {
      const expires = now + SESSION_MS
      return `${expires}.${await sign(expires)}`
    },
    async valid(token, now) {
      const m = token === undefined ? null : /^(\d{1,16})\.([\w-]{43})$/.exec(token)
      if (!m?.[1] || !m[2] || Number(m[1]) < now) return false
      const expected = Buffer.from(await sign(Number(m[1])))
      const given = Buffer.from(m[2])
      return expected.length === given.length && timingSafeEqual(expected, given)
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
  if (!opts.reset && (await readMeta(db, PASSWORD_KEY)) !== undefined) return null
  const password = generatePassword()
  const hash = await hashPassword(password)
  if (opts.reset) await db.deleteFrom('meta').where('key', '=', PASSWORD_KEY).execute()
  // Several processes starting at once: one claim wins, and only its password is printed.
  return (await claimOnce(db, PASSWORD_KEY, hash)) ? password : null
}
