/** This module's limits; README and docs state them (test/unit/limits.test.ts). */

/** Largest `limit` of a sessions list. */
export const MAX_LIMIT = 200
/** Largest `offset`: 2^53−1, the largest integer a JSON number (and JavaScript) holds exactly, so it is never rounded. */
export const MAX_OFFSET = 9_007_199_254_740_991
/** Longest `after` cursor: a list's `next` holds its last row's sort key (an id of at most MAX_SESSION_ID_LENGTH characters) in base64url. */
export const MAX_CURSOR_LENGTH = 600
const SIZE_UNITS: Record<string, number> = {
  b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40,
}

/**
 * A size a person wrote (`500MB`, `1.5 GiB`, `2048`): KB, MB, GB and TB are powers of 1000, KiB, MiB, GiB and TiB of
 * 1024, a bare number is bytes. null when it is none of these or not a whole, safe number of bytes.
 *
 * @example
 * parseByteSize('500MB') // 500000000
 */
export function parseByteSize(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]i?b|b)?$/i.exec(text.trim())
  if (!m?.[1]) return null
  const bytes = Math.round(Number(m[1]) * (SIZE_UNITS[(m[2] ?? 'b').toLowerCase()] ?? NaN))
  return Number.isSafeInteger(bytes) ? bytes : null
}

/**
 * A byte count as the docs and messages write it: whole MiB or KiB when it is one, else bytes.
 *
 * @example
 * byteSize(MAX_BATCH_BYTES) // "1 MiB"
 */
export function byteSize(bytes: number): string {
  const kib = 1024
  const mib = kib * kib
  if (bytes >= mib && bytes % mib === 0) return `${bytes / mib} MiB`
  if (bytes >= kib && bytes % kib === 0) return `${bytes / kib} KiB`
  return `${bytes} bytes`
}
