/** This module's limits; README and docs state them (test/unit/limits.test.ts). */

/** Largest `limit` of a sessions list. */
export const MAX_LIMIT = 200
/** Largest `offset`: 2^53−1, the largest integer a JSON number (and JavaScript) holds exactly, so it is never rounded. */
export const MAX_OFFSET = 9_007_199_254_740_991
/** Longest `after` cursor: a list's `next` holds its last row's sort key (an id of at most MAX_SESSION_ID_LENGTH characters) in base64url. */
export const MAX_CURSOR_LENGTH = 600
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
