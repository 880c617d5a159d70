import type { SessionListRow } from '../visits/tables.ts'

/** Sessions whose startedAt is in [from, to) and that are not past `cutoff` (retention). */
export interface SessionRange {
  from?: number
  to?: number
  cutoff: number
}

/** A page of the list: `limit` rows from `offset`, or after the row whose sort key is `after` (a cursor's). */
export interface SessionPage {
  limit: number
  offset: number
  after?: SessionKey
}

/** A session's place in list order: lastSeenAt (ms), then id. */
export type SessionKey = readonly [lastSeenAt: number, id: string]
export const sessionKey = (row: Pick<SessionListRow, 'last_seen_at' | 'id'>): SessionKey => [row.last_seen_at, row.id]

/** The list's filters (API v1 search and the dashboard's); each narrows the list, all must hold. */
export interface SessionFilters {
  /** session_terms the visit has, every one (search.ts `term`: errors, recording, country, browser, OS, types, statuses, tags). */
  terms?: readonly string[]
  /** Identified as this user id (exact). */
  user?: string
  /** Hit this issue. */
  issue?: string
  /** A page of the visit contains this text (case-insensitive, 3+ characters). */
  url?: string
  /** Each of these texts occurs in the visit's searchable text (case-insensitive, 3+ characters each). */
  q?: readonly string[]
  /**
   * Only these visits, each id once: what `url` and `q` matched, found once in the trigram index (searchSessions does
   * it, and drops them), then, with other filters, those of them that pass every one (countMatching lists them, and
   * drops those filters); or the visits of a rare term, issue or user that a walk of the list order probes in a list
   * (searchSessions lists them, within the text's ids if any, and drops that filter). Not a search parameter of its own.
   */
  ids?: readonly string[]
}
