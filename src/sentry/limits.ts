/** This module's limits; README and docs state them (test/unit/limits.test.ts). */

/**
 * Most bytes of a compressed Sentry envelope inflated to read its header line (a tunnel's `dsn`) before the sender
 * is authenticated: Sentry's headers are a few hundred bytes.
 */
export const SENTRY_HEADER_PEEK_BYTES = 65_536 // 64 KiB
/** Largest envelope request body as sent (compressed or not): Bugsink's MAX_ENVELOPE_COMPRESSED_SIZE is 20 MiB. */
export const SENTRY_MAX_BODY_BYTES = 10_485_760 // 10 MiB
/** Largest envelope once its Content-Encoding is inflated. */
export const SENTRY_MAX_ENVELOPE_BYTES = 20_971_520 // 20 MiB
/** Largest event, feedback or replay_event item: Relay's and Bugsink's limit. */
export const SENTRY_MAX_EVENT_BYTES = 1_048_576 // 1 MiB
/** An error that names no replay joins its user's, else its IP and User-Agent's, visit active this recently. */
export const SENTRY_VISIT_IDLE_MS = 1_800_000 // 30 min
/** An anonymous error's visit (by IP address and User-Agent) is looked for among this many most recently active visits. */
export const SENTRY_VISIT_SCAN = 5000
/** Exceptions of a chain kept (the error thrown and its causes): Sentry's SDKs send at most 5 by default. */
export const SENTRY_MAX_CHAIN = 10
/**
 * Characters of source context kept over an event's frames, newest first: an event's frames are read with every visit
 * that holds it, and 50 frames of 11 lines of 500 characters would make one error 275 K characters.
 */
export const SENTRY_MAX_CONTEXT_CHARS = 16_384
/** Longest function name and file path kept of a server SDK's frame (a V8 stack line is at most 2048 characters). */
export const SENTRY_MAX_FRAME_NAME_LENGTH = 1024
/**
 * Clicks on one element in a burst that make a Sentry replay's `ui.multiClick` or `ui.slowClickDetected` a RAGE_CLICK:
 * our SDK's default. Fewer on a slow element are a DEAD_CLICK when nothing answered; a double-click is neither.
 */
export const SENTRY_RAGE_CLICKS = 3
/**
 * Page loads whose URL is remembered, by span id, for the vital spans that name their page load but not its URL
 * (LCP, CLS and INP under the span-streaming lifecycle): a page load is a few hundred bytes here.
 */
export const SENTRY_PAGELOADS_KEPT = 10_000
