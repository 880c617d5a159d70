/** This module's limits; README and docs state them (test/unit/limits.test.ts). */
import { MAX_ELEMENT_LENGTH, MAX_SELECTOR_LENGTH } from '../../common/limits.ts'
export { MAX_CLICK_COUNT } from '../../common/limits.ts'

/** Longest session id a path may carry: none is longer, so a longer one is a 404 without a lookup. */
export const MAX_SESSION_ID_LENGTH = 200
/** Longest chunk id an upload may carry, so the longest a chunk lookup can match. */
export const MAX_CHUNK_ID_LENGTH = 100
/** Longest issue id a path or `issue=` may carry: ids are 12 characters, so a longer one matches nothing. */
export const MAX_ISSUE_ID_LENGTH = 64
/** Largest accepted ingest request body. Beacons are capped lower by browsers (64 KiB). */
export const MAX_BATCH_BYTES = 1_048_576 // 1 MiB
/** Events per ingest batch. */
export const MAX_EVENTS_PER_BATCH = 500
/** Recording chunks per ingest request: a few at most, since one chunk is already up to RECORDING_MAX_CHUNK_BYTES. */
export const MAX_CHUNKS_PER_BATCH = 10
/** Longest request duration stored: 31 days, far beyond any real request. */
export const MAX_DURATION_MS = 2_678_400_000 // 31 days
/** Longest landing page URL a batch may name (the `page` field). */
export const MAX_PAGE_URL_LENGTH = 8192
/** Longest User-Agent kept: longer ones are cut (ingest) or refused (import). */
export const MAX_USER_AGENT_LENGTH = 1024
/**
 * Longest stored value of each text field, in characters. Longer values are cut and end with
 * "…[truncated N chars]", so nothing is silently shortened and a batch is never refused for one long stack.
 */
export const TEXT_LIMITS: Readonly<Record<
  'url' | 'method' | 'message' | 'stack' | 'reqBody' | 'resBody' | 'fingerprint' | 'selector' | 'text' | 'element', number
>> = {
  url: 4096,
  method: 16,
  message: 8192,
  stack: 32_768,
  reqBody: 65_536,
  resBody: 65_536,
  fingerprint: 256,
  selector: MAX_SELECTOR_LENGTH,
  text: 80,
  element: MAX_ELEMENT_LENGTH,
}
/**
 * Most bytes one recording chunk (or Sentry replay segment) may inflate to, and the most plain JSON a chunk may be.
 * The recorder benchmark's heavy page (19,200 elements, 200 changes every 50 ms) records 5.4–6.0 MiB of JSON per
 * 5-second chunk (440 KiB gzip-compressed): this leaves it 2.7 times that. Beyond it a compressed chunk is a
 * decompression bomb (413).
 */
export const MAX_CHUNK_JSON_BYTES = 16_777_216 // 16 MiB
/**
 * Most bytes all the inflations of one request may give together (its chunks, its Sentry body and replay items):
 * two of the largest chunks. Beyond it the whole request is refused (413) and nothing of it is stored.
 */
export const MAX_REQUEST_INFLATED_BYTES = 33_554_432 // 32 MiB
/**
 * Most times its compressed size any data may inflate to (past INFLATE_RATIO_FROM_BYTES). Real rrweb JSON
 * compresses 7–13 times with gzip (the recorder benchmark's pages: article 11.8, heavy 12.1–13.2), Sentry events
 * less; a DEFLATE bomb reaches 1032 times, brotli's far more.
 */
export const MAX_INFLATE_RATIO = 100
/** Output below this is never refused for its ratio: small data (an rrweb Meta event, a tiny envelope) says little by its ratio. */
export const INFLATE_RATIO_FROM_BYTES = 1_048_576 // 1 MiB
/** Lines of original source shown before and after a mapped frame's line. */
export const SOURCE_CONTEXT_LINES = 5
