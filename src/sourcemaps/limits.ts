/** This module's limits; README and docs state them (test/unit/limits.test.ts). */

/**
 * Longest line of a stack read as a frame, in characters: a browser's frame is a function name and a script URL,
 * rarely over 300. Longer lines are kept in the text but are no frame, which bounds what grouping and source maps
 * do with one line.
 */
export const MAX_STACK_LINE_LENGTH = 2048
/**
 * Largest source map accepted (uncompressed), by the upload endpoint and the CLI alike. Maps of a
 * large app with sourcesContent reach 100 MB; the self-hosted complaints of the peers are 413s on
 * maps over 16–20 MB, so the bound sits well above any real map.
 */
export const MAX_SOURCEMAP_BYTES = 268_435_456 // 256 MiB
/**
 * Source map uploads over HTTP running at once per process. Each is streamed to a temporary file as it arrives,
 * but checking a map parses it whole, which holds a few times its size in memory for a moment; one more upload
 * answers 503 with Retry-After (UNAVAILABLE_RETRY_SECONDS) before any of its body is read.
 */
export const SOURCEMAP_MAX_CONCURRENT_UPLOADS = 2
/**
 * How long a process trusts what it looked up about a script URL (its map, or that it has none).
 * An upload or delete in the same process forgets at once; other processes see it within this time.
 */
export const SOURCEMAP_LOOKUP_TTL_MS = 10_000 // 10 s
/** Script URLs (and debug IDs) whose lookup a process remembers at most. */
export const SOURCEMAP_LOOKUP_ENTRIES = 10_000
/**
 * Resolved frames remembered per parsed map: the frames of a page's events repeat, and each is worked
 * out once (its function name and context) rather than once per event.
 */
export const SOURCEMAP_FRAME_MEMO = 1000
/**
 * Lines above a frame searched for the header of the function around it: longer functions than this keep
 * the name the browser printed, and a frame in top-level code stops searching here.
 */
export const SOURCE_FUNCTION_SCAN_LINES = 2000
/** Longest line of source context, in characters: a minified vendor file would otherwise put a whole bundle in each frame. */
export const MAX_SOURCE_CONTEXT_LINE_LENGTH = 500
/** Stack traces lately parsed into frames (src/issues/stack.ts). */
export const STACK_CACHE_BYTES = 4_194_304 // 4 MiB
