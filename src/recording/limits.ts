/** Bounds of the recording stores and their upkeep (src/recording/store, budget.ts). */

/** Objects one S3 DeleteObjects request names: S3's own maximum. */
export const S3_DELETE_BATCH = 1000
/** How long one S3 request (connecting, then answering) may take before the store counts as unreachable. */
export const S3_REQUEST_TIMEOUT_MS = 5000
/**
 * Objects younger than this are never called orphans by `storage check`: a chunk is written to its store before its
 * metadata commits, and a busy service may take a moment between the two.
 */
export const ORPHAN_MIN_AGE_MS = 10 * 60_000
/** Trashed objects deleted from their store per round of the upkeep. */
export const TRASH_BATCH = 500
/** Seconds between the in-process rounds of recording upkeep: trash, budgets, the disk floor. */
export const RECORDING_UPKEEP_SECONDS = 30
/** Visits whose recordings one eviction transaction deletes. */
export const EVICT_BATCH = 100
/** Chunks of one request written to a store at once. */
export const PUT_CONCURRENCY = 4
