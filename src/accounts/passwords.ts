import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2'

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>

/**
 * Argon2id with @node-rs/argon2's defaults (19 MiB, 2 passes, 1 lane: OWASP's minimum), hashed off the main thread.
 */
export const hashPassword = (password: string): Promise<string> => argon2Hash(password)

/**
 * Checks a password against a stored hash: Argon2id, or the scrypt hash the shared dashboard password was kept as.
 * `upgrade` says the hash is of the old kind and should be replaced now that the password is known.
 */
export async function checkPassword(stored: string | null, password: string): Promise<{ ok: boolean; upgrade: boolean }> {
  if (stored === null) return { ok: false, upgrade: false }
  if (stored.startsWith('$argon2')) {
    try {
      return { ok: await argon2Verify(stored, password), upgrade: false }
    } catch {
      return { ok: false, upgrade: false }
    }
  }
  const [scheme, salt, key] = stored.split('$')
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return { ok: false, upgrade: false }
  const expected = Buffer.from(key, 'base64')
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length)
  const ok = actual.length === expected.length && timingSafeEqual(actual, expected)
  return { ok, upgrade: ok }
}

/** A scrypt hash as the shared dashboard password was stored: kept to test the upgrade. */
export async function scryptHash(password: string): Promise<string> {
  const salt = randomBytes(16)
  return `scrypt$${salt.toString('base64')}$${(await scrypt(password, salt, 32)).toString('base64')}`
}

/** A readable random password: 20 characters from a 32-letter alphabet without look-alikes (100 bits). */
export function generatePassword(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789A'
  return Array.from(randomBytes(20), (b) => alphabet[b % alphabet.length]).join('')
}
