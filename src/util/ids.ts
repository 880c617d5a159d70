import { createHash, randomBytes } from 'node:crypto'

/** A random, URL-safe identifier: `prefix` followed by `bytes` of entropy in base64url. */
export function newId(prefix: string, bytes: number): string {
  return prefix + randomBytes(bytes).toString('base64url')
}

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex')

/** base64url's 64 characters in byte order: a number written in them sorts as the number does, by bytes. */
const SORTED_DIGITS = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz'
/** Digits of a time-ordered id's time: 7 × 6 bits, milliseconds until 2109-05-15. */
const TIME_DIGITS = 7
const LATEST_TIME = SORTED_DIGITS.length ** TIME_DIGITS - 1
/** Random characters after the time: 9 × 6 = 54 bits, cut from 7 random bytes (10 characters of base64url). */
const RANDOM_DIGITS = 9

/**
 * A visit's id: 16 URL-safe characters, as random ids of 12 bytes have — TIME_DIGITS for the millisecond it was made,
 * written in SORTED_DIGITS, then RANDOM_DIGITS random ones. Ids made later sort after, by bytes (SQLite's BINARY
 * collation, PostgreSQL's "C"): every index keyed by a visit's id — the sessions' and events' primary keys, the events'
 * order, terms, texts, issue links — takes a group commit's new rows in one place, on a few pages, where random ids put
 * each on a page of its own, and every page a commit changes is written whole to SQLite's WAL. A time outside
 * 0–LATEST_TIME (a clock gone wrong) is clamped into it: it costs the order, never uniqueness, which is the random part's.
 */
export function timeOrderedId(now: number): string {
  let t = Math.min(LATEST_TIME, Math.max(0, Math.floor(now) || 0))
  let time = ''
  for (let i = 0; i < TIME_DIGITS; i++) {
    time = SORTED_DIGITS.charAt(t % SORTED_DIGITS.length) + time
    t = Math.floor(t / SORTED_DIGITS.length)
  }
  return time + newId('', 7).slice(0, RANDOM_DIGITS)
}
