/** This module's limits; README and docs state them (test/unit/limits.test.ts). */

/**
 * How often a process looks for requests past their deadline (Node's connectionsCheckingInterval, 30 s by default,
 * which would let a 30-second deadline run to a minute); a quarter of a shorter deadline.
 */
export const REQUEST_TIMEOUT_CHECK_MS = 1000
