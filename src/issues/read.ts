import type { Selectable } from 'kysely'
import type { Db } from '../database.ts'
import { canMatch, rowAfter, unindexed } from '../db/sql.ts'
import type { KeyShape } from '../util/cursor.ts'
import { dayOf } from '../util/time.ts'
import { eventColumns, sessionColumns, type EventRow, type SessionListRow } from '../visits/tables.ts'
import type { IssueStatus, IssueTable } from './tables.ts'

const issueColumns = [
  'id', 'grouping_version', 'type', 'title', 'culprit', 'first_seen_at', 'last_seen_at', 'events', 'sessions', 'status', 'assignee_id',
] as const satisfies readonly (keyof IssueTable)[]
export type IssueRow = Pick<Selectable<IssueTable>, (typeof issueColumns)[number]>

/** Issues whose lastSeenAt is in [from, to), of one status or all, assigned to one person (null: to nobody) or anyone. */
interface IssueFilter {
  status?: IssueStatus
  from?: number
  to?: number
  assignee?: string | null
}

/** The orders the dashboard offers; the API lists by last seen. */
export type IssueOrder = 'last_seen' | 'events' | 'sessions'

function issuesMatching(db: Db, projectId: string, filter: IssueFilter) {
  let q = db.selectFrom('issues').where('project_id', '=', projectId)
  if (filter.status !== undefined) q = q.where('status', '=', filter.status)
  if (filter.from !== undefined) q = q.where('last_seen_at', '>=', filter.from)
  if (filter.to !== undefined) q = q.where('last_seen_at', '<', filter.to)
  if (filter.assignee !== undefined) q = q.where('assignee_id', filter.assignee === null ? 'is' : '=', filter.assignee)
  return q
}

/** The columns an issue order sorts by, all descending: the last is the id, so no two issues tie. */
const issueOrderColumns = (order: IssueOrder) =>
  (order === 'last_seen' ? ['last_seen_at', 'id'] as const : [order, 'last_seen_at', 'id'] as const)

/** An issue's place in an order: its values of issueOrderColumns (a cursor's key). */
export const issueKey = (row: IssueRow, order: IssueOrder): (number | string)[] => issueOrderColumns(order).map((c) => row[c])

/** What a cursor's key holds for an order: the id is text, every other sort column an integer. */
export const issueKeyShape = (order: IssueOrder): KeyShape => issueOrderColumns(order).map((c) => (c === 'id' ? 'string' : 'integer'))

/** One page of issues, most recent last seen first (or most events, most visits), id breaking ties; from `offset` or after a key. */
export function listIssues(
  db: Db, projectId: string, filter: IssueFilter, page: { limit: number; offset: number; after?: readonly (number | string)[] }, order: IssueOrder = 'last_seen',
): Promise<IssueRow[]> {
  const columns = issueOrderColumns(order)
  let q = issuesMatching(db, projectId, filter).select(issueColumns)
  if (page.after) q = q.where(rowAfter(columns, page.after, 'desc'))
  for (const c of columns) q = q.orderBy(c, 'desc')
  return q.limit(page.limit).offset(page.offset).execute()
}

/**
 * Exact number of issues matching the filter. Without a time range it is read from issue_totals
 * (one row per status), so the first page costs no count however many issues a project has.
 */
export async function countIssues(db: Db, projectId: string, filter: IssueFilter): Promise<number> {
  if (filter.from === undefined && filter.to === undefined && filter.assignee === undefined) {
    let q = db.selectFrom('issue_totals').select((eb) => eb.fn.sum<number | string | null>('issues').as('n'))
      .where('project_id', '=', projectId)
    if (filter.status !== undefined) q = q.where('status', '=', filter.status)
    return Number((await q.executeTakeFirst())?.n ?? 0)
  }
  const row = await issuesMatching(db, projectId, filter).select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function findIssue(db: Db, projectId: string, id: string): Promise<IssueRow | undefined> {
  if (!canMatch(id)) return undefined
  return db.selectFrom('issues').select(issueColumns).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
}

/** The issue's most recent event (the one it points at) in a live visit, with its visit's id; undefined when none is stored. */
export async function latestIssueEvent(
  db: Db, projectId: string, issueId: string, cutoff: number,
): Promise<(EventRow & { session_id: string }) | undefined> {
  if (!canMatch(issueId)) return undefined
  // Two key lookups rather than a join, so no planner can start from the events side.
  const pointer = await db.selectFrom('issues').select(['last_session_id', 'last_event_id'])
    .where('project_id', '=', projectId).where('id', '=', issueId).executeTakeFirst()
  if (!pointer?.last_session_id || !pointer.last_event_id) return undefined
  return db.selectFrom('events as e')
    .innerJoin('sessions as s', (j) => j.onRef('s.project_id', '=', 'e.project_id').onRef('s.id', '=', 'e.session_id'))
    .select(eventColumns.map((c) => `e.${c}` as const)).select('e.session_id')
    .where('e.project_id', '=', projectId).where('e.session_id', '=', pointer.last_session_id).where('e.id', '=', pointer.last_event_id)
    .where('s.last_seen_at', '>=', cutoff).executeTakeFirst()
}

/**
 * Recent live visits that hit the issue, the ones with a screen recording first, among its `window` latest visits by
 * id (ids sort by start). Unbounded, a hot issue's visits were all read and sorted: 20,000 visits among 1M took
 * 290 ms on PostgreSQL, 790 ms once its planner chose to scan every session.
 */
export function issueVisits(db: Db, projectId: string, issueId: string, cutoff: number, limit: number, window: number): Promise<SessionListRow[]> {
  const latest = db.selectFrom('issue_sessions').select('session_id')
    .where('project_id', '=', projectId).where('issue_id', '=', issueId).orderBy('session_id', 'desc').limit(window)
  return db.selectFrom('sessions').select(sessionColumns)
    .where('project_id', '=', projectId).where('id', 'in', latest).where(unindexed('last_seen_at'), '>=', cutoff)
    .orderBy((eb) => eb.case().when('recording_chunks', '>', 0).then(1).else(0).end(), 'desc')
    .orderBy(unindexed('last_seen_at'), 'desc').orderBy('id', 'desc').limit(limit).execute()
}

/** An issue's events per UTC day number from the day of `from` on (issue_days). Days without events are absent. */
export async function issueEventsPerDay(db: Db, projectId: string, issueId: string, from: number): Promise<{ day: number; events: number }[]> {
  if (!canMatch(issueId)) return []
  return db.selectFrom('issue_days').select(['day', 'events'])
    .where('project_id', '=', projectId).where('issue_id', '=', issueId).where('day', '>=', dayOf(from)).orderBy('day').execute()
}

/** The project's ERROR issues most recently seen first, at most `limit`: the ones a new source map may regroup. */
export async function recentErrorIssues(db: Db, projectId: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('issues').select('id').where('project_id', '=', projectId).where('type', '=', 'ERROR')
    .orderBy('last_seen_at', 'desc').orderBy('id', 'desc').limit(limit).execute()
  return rows.map((r) => r.id)
}


/** The issues a release opened (their first event came from it), most recently first seen first, at most `limit`. */
export function releaseIssues(db: Db, projectId: string, release: string, environment: string, limit: number): Promise<IssueRow[]> {
  return db.selectFrom('issues').select(issueColumns).where('project_id', '=', projectId).where('release', '=', release)
    .where('environment', '=', environment).orderBy('first_seen_at', 'desc').orderBy('id', 'desc').limit(limit).execute()
}

/** How many issues each of these releases opened (issue_release_totals), by `release\0environment`. */
export async function releaseIssueCounts(db: Db, projectId: string, releases: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  if (releases.length === 0) return counts
  const found = await db.selectFrom('issue_release_totals').select(['release', 'environment', 'issues'])
    .where('project_id', '=', projectId).where('release', 'in', [...new Set(releases)]).execute()
  for (const r of found) counts.set(`${r.release}\u0000${r.environment}`, r.issues)
  return counts
}
