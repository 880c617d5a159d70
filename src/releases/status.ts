/*
 * The session-status rules of release health, pure: how a Sentry session's final state, an aggregate's counts and
 * one of our SDK's visits become counted sessions (docs/sentry.md, "Release health").
 */

/** The counts a unit adds: sessions, and of them the errored, crashed and abnormal ones (each session in one at most). */
export interface SessionCounts {
  sessions: number
  errored: number
  crashed: number
  abnormal: number
}

/** How a session ended, worst last: a healthy one (ok, exited) counts in none of the unhealthy buckets. */
export type Outcome = 'healthy' | 'errored' | 'abnormal' | 'crashed'

const RANK: Record<Outcome, number> = { healthy: 0, errored: 1, abnormal: 2, crashed: 3 }

/** The worse of two outcomes: a visit that crashed stays crashed whatever it does next. */
export const worse = (a: Outcome, b: Outcome): Outcome => (RANK[a] >= RANK[b] ? a : b)

/**
 * A Sentry session's outcome from its latest update: `crashed` and `abnormal` as sent; `errored` when its status says
 * so or it counted errors; else healthy (`ok`, still running, and `exited`, ended normally).
 */
export function sessionOutcome(status: unknown, errors: unknown): Outcome {
  if (status === 'crashed') return 'crashed'
  if (status === 'abnormal') return 'abnormal'
  if (status === 'errored' || (typeof errors === 'number' && errors > 0)) return 'errored'
  return 'healthy'
}

/** One session with this outcome. */
export const countsOf = (outcome: Outcome): SessionCounts => ({
  sessions: 1, errored: outcome === 'errored' ? 1 : 0, crashed: outcome === 'crashed' ? 1 : 0, abnormal: outcome === 'abnormal' ? 1 : 0,
})

/** The outcome a unit's counts say, for a unit of one session. */
export const outcomeOf = (c: SessionCounts): Outcome =>
  (c.crashed > 0 ? 'crashed' : c.abnormal > 0 ? 'abnormal' : c.errored > 0 ? 'errored' : 'healthy')

const count = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0)

/** An aggregate bucket's counts: `exited` are healthy sessions, each bucket's number its sessions of that outcome. */
export function aggregateCounts(bucket: Record<string, unknown>): SessionCounts {
  const errored = count(bucket.errored)
  const crashed = count(bucket.crashed)
  const abnormal = count(bucket.abnormal)
  return { sessions: count(bucket.exited) + errored + crashed + abnormal, errored, crashed, abnormal }
}

/**
 * The messages of errors the page did not handle, as our browser SDK sends them: the browser's own text of an uncaught
 * exception (`Uncaught TypeError: …`, Firefox's `uncaught exception: …`, `Script error.` for another origin's script) and
 * the SDK's prefix for an unhandled promise rejection. captureError sends the error's own text, which has none of these.
 */
const UNHANDLED = /^(?:Uncaught\b|uncaught exception:|Unhandled rejection:|Script error\.?$)/

/** A visit's outcome from its events: crashed with an unhandled ERROR, errored with a handled one, else healthy. */
export function visitOutcome(events: readonly { type: string; message: string | null }[]): Outcome {
  let outcome: Outcome = 'healthy'
  for (const e of events) {
    if (e.type !== 'ERROR') continue
    if (UNHANDLED.test(e.message ?? '')) return 'crashed'
    outcome = 'errored'
  }
  return outcome
}
