import { createHash, randomBytes } from 'node:crypto'

/** A random, URL-safe identifier: `prefix` followed by `bytes` of entropy in base64url. */
export function newId(prefix: string, bytes: number): string {
  return prefix + randomBytes(bytes).toString('base64url')
}

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex')

/** base64url's 64 characters in byte order: a number written in them sorts as the number does, by bytes. */
const SORTED_DIGITS = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz'

/**
 * A visit's id: 16 URL-safe characters, as random ids have — 7 for the time it was made, in milliseconds written in
 * SORTED_DIGITS (good until 2109), then 9 random ones (54 bits). Ids made later sort after, by bytes (SQLite's BINARY
 * collation, PostgreSQL's "C"): every index keyed by a visit's id — its row, events, terms, texts, issue links — takes
 * a group commit's new rows near its end, on a few pages, where random ids put each row on a page of its own, and every
 * page a commit changes is written whole to the WAL.
 */
export function timeOrderedId(now: number): string {
  let time = ''
  for (let t = Math.max(0, Math.floor(now)), i = 0; i < 7; i++, t = Math.floor(t / 64)) time = SORTED_DIGITS.charAt(t % 64) + time
  return time + randomBytes(7).toString('base64url').slice(0, 9)
}
