/** This module's limits; README and docs state them (test/unit/limits.test.ts). */

/** Days of the dashboard's occurrences-over-time chart of an issue. */
export const ISSUE_HISTOGRAM_DAYS = 30
/** Characters of an error or report message (and URL) a row of the dashboard's sessions list carries: a line's worth. */
export const MAX_HEADLINE_LENGTH = 300
/** Failed sign-ins from one address (or one signed-in browser) checked without delay before each next one has to wait. */
export const SIGN_IN_FREE_FAILURES = 5
/** The first wait after SIGN_IN_FREE_FAILURES failures, doubled with each further failure up to SIGN_IN_MAX_DELAY_MS. */
export const SIGN_IN_FIRST_DELAY_MS = 1000 // 1 s
/**
 * The longest wait between sign-in attempts from one address: short, so someone failing on purpose from the
 * admin's address (or from everyone's, behind a proxy without TRUST_PROXY) delays the admin at most this long.
 */
export const SIGN_IN_MAX_DELAY_MS = 60_000 // 1 minute
/** How long failed sign-ins are remembered after an address's last attempt: 15 minutes. */
export const SIGN_IN_WINDOW_MS = 900_000 // 15 minutes
/** Addresses whose failures are remembered at most, so a flood of addresses cannot grow memory without limit. */
export const SIGN_IN_MAX_ADDRESSES = 10_000
/**
 * Password checks (scrypt, ~50 ms on one of libuv's 4 worker threads, which also inflate recordings) run at once
 * per process; a sign-in beyond them answers 429 at once rather than queue.
 */
export const SIGN_IN_MAX_CONCURRENT_CHECKS = 2
/** How long a browser that signed in is known by its device cookie, its attempts counted apart from its address: a year. */
export const SIGN_IN_DEVICE_SECONDS = 31_536_000 // 365 days
/** Retry-After of a sign-in refused because SIGN_IN_MAX_CONCURRENT_CHECKS are running. */
export const SIGN_IN_BUSY_RETRY_SECONDS = 1
