/** This module's limits; README and docs state them (test/unit/limits.test.ts). */

/** Webhooks a project may have. */
export const MAX_WEBHOOKS_PER_PROJECT = 10
/**
 * Alerts (new issues, regressions) of one project within WEBHOOK_RATE_WINDOW_MS; beyond them an alert's deliveries
 * are stored as `dropped` with the reason. Each alert goes to every webhook of the project, so all of them get the
 * same first alerts of a burst; 20 in 10 minutes is about what a chat channel can take before alerts stop being
 * read (Slack allows about one message a second).
 */
export const WEBHOOK_RATE_LIMIT = 20
/** The window of WEBHOOK_RATE_LIMIT: 10 minutes. */
export const WEBHOOK_RATE_WINDOW_MS = 600_000
/** How long a receiver has to answer a delivery in full (the 10 s that Highlight's receivers are held to). */
export const WEBHOOK_TIMEOUT_MS = 10_000
/** Bytes of a receiver's answer read at most: enough for WEBHOOK_ERROR_MAX_CHARS characters of any text. */
export const WEBHOOK_RESPONSE_MAX_BYTES = 1024
/**
 * Characters of a failed answer's body (or of the error) kept for the delivery log: enough for a status line or a
 * chat service's error (`invalid_token`, Discord's JSON error), not for a page a receiver answers with, which may
 * echo the alert's visitor text or hold the receiver's own data and would live as long as the log.
 */
export const WEBHOOK_ERROR_MAX_CHARS = 256
/** Longest `content` of a delivery: Discord refuses a message over 2000 characters. */
export const WEBHOOK_CHAT_MAX_CHARS = 2000
/** Characters of an issue's title (and of its culprit) in the chat message; the `issue` object has them whole. */
export const WEBHOOK_CHAT_TITLE_CHARS = 300
/** How often each service process looks for deliveries that are due: an alert arrives within this much of its issue. */
export const WEBHOOK_POLL_MS = 5000
/** Deliveries one process claims and sends at once. */
export const WEBHOOK_BATCH = 10
/** How long a claimed delivery is another process's: past it (the claimer died), any process sends it again. */
export const WEBHOOK_LEASE_MS = 60_000
/** Wait before the first retry of a failed delivery; each further retry waits twice as long as the one before. */
export const WEBHOOK_BACKOFF_BASE_MS = 10_000
/** Longest wait between two retries: one hour. */
export const WEBHOOK_BACKOFF_MAX_MS = 3_600_000
/** How long a delivery is retried after it was queued: 24 hours, then it is `failed`. */
export const WEBHOOK_RETRY_FOR_MS = 86_400_000
