/** This module's limits; README and docs state them (test/unit/limits.test.ts). */

/** Visits getIssue returns with an issue. */
export const ISSUE_VISITS = 10
/** The issue's latest visits (by id, so by start) among which getIssue picks its ISSUE_VISITS: its cost is bounded. */
export const ISSUE_VISITS_WINDOW = 1000
/** ERROR issues (the most recently seen) grouped again after a source map upload, so their bug keeps its issue. */
export const REGROUP_ISSUES = 1000
/**
 * Each of these caches is bounded by its entries' estimated heap bytes (src/util/memory.ts), not by their count
 * or key length: entries of one key length differ widely in size, and V8 grows its heap to a few times what is live.
 */
/** Groupings of unmapped errors lately computed (src/issues/grouping.ts). */
export const GROUPING_CACHE_BYTES = 4_194_304 // 4 MiB
