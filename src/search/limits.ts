/** This module's limits; README and docs state them (test/unit/limits.test.ts). */

/**
 * A `q=` word or `url=` text that occurs in more of a project's text than this (rows of searchable text, about one
 * per batch that brought new text) is refused as too broad, unless another filter or a from/to range narrows the
 * search to at most SEARCH_TEXT_PROBE_MAX visits first: counting every visit that holds a common word costs
 * seconds, and the spec's `total` must be exact.
 */
export const SEARCH_TEXT_MATCH_LIMIT = 10_000
/** At most this many visits (narrowed by another filter or a range) are searched for text one by one. */
export const SEARCH_TEXT_PROBE_MAX = 5000
/** Characters of each message or URL that `q=` and `url=` search. */
export const SEARCH_INDEXED_CHARS = 1000
/** Hashes of the texts recent visits have indexed for search (src/search/indexing.ts). */
export const INDEXED_TEXTS_CACHE_BYTES = 4_194_304 // 4 MiB
