import { sql, type RawBuilder, type Selectable } from 'kysely'
import { canMatch, type Db } from '../db/database.ts'
import { rowAfter, unindexed } from '../db/sql.ts'
import { notFound } from '../errors.ts'
import { retentionCutoff, type ProjectContext } from '../projects/service.ts'
import { dayOf } from '../shared/time.ts'
import type { KeyShape } from '../shared/cursor.ts'
import { ERROR_TYPES } from '../events/types.ts'
import { term } from './search.ts'
import type { EventTable, IssueStatus, IssueTable, RecordingChunkTable } from './tables.ts'
import {
  liveSessions, searchByPlan, sessionColumns, type SessionFilters, type SessionJsonRow, type SessionListRow, type SessionPage, type SessionRange,
} from './list.ts'
import { searchTextsAlone, textsAlone } from './text-alone.ts'

export * from './list.ts'
export { countSessions } from './count.ts'

/**
 * A filtered page with its exact total: a search by text alone in one statement where the engine gains by it
 * (text-alone.ts), any other as list.ts plans it from its count (searchByPlan). Given `json`, each row is the session's
 * JSON, as its row keeps it (src/sessions/views.ts `sessionJson`).
 */
export function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters,
): Promise<{ total: number; rows: SessionListRow[] }>
export function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters, json: RawBuilder<string>,
): Promise<{ total: number; rows: SessionJsonRow[] }>
export function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters, json: RawBuilder<string> | undefined,
): Promise<{ total: number; rows: SessionListRow[] | SessionJsonRow[] }>
export function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters, json?: RawBuilder<string>,
): Promise<{ total: number; rows: SessionListRow[] | SessionJsonRow[] }> {
  if (textsAlone(db, range, filters)) return searchTextsAlone(db, projectId, range, page, filters, json)
  return searchByPlan(db, projectId, range, page, filters, json)
}

export const eventColumns = [
  'seq', 'id', 'type', 'created_at', 'url', 'method', 'message', 'stack', 'status_code', 'duration_ms', 'req_body', 'res_body',
  'fingerprint', 'issue_id',
] as const satisfies readonly (keyof EventTable)[]
export type EventRow = Pick<Selectable<EventTable>, (typeof eventColumns)[number]>

/** A session of the project not past retention; unknown, expired and foreign ids all answer the same 404. */
export async function liveSession(db: Db, project: ProjectContext, id: string, now: number): Promise<SessionListRow> {
  const row = await findSession(db, project.id, id, retentionCutoff(project, now))
  if (!row) throw notFound(`Session "${id}" not found`)
  return row
}

export async function findSession(db: Db, projectId: string, id: string, cutoff: number): Promise<SessionListRow | undefined> {
  if (!canMatch(id)) return undefined
  return db.selectFrom('sessions').select(sessionColumns)
    .where('project_id', '=', projectId).where('id', '=', id).where('last_seen_at', '>=', cutoff)
    .executeTakeFirst()
}

/**
 * An event's JSON as a statement writes it (src/sessions/views.ts `eventJson`): `json` whole but for `frames`, which
 * it writes null (reads resolve them), and a durationMs that is a fraction, which the engine cannot write as
 * JavaScript does: it writes that null too and gives the value in `duration`.
 */
export interface EventJsonSql {
  json: RawBuilder<string>
  duration: RawBuilder<number | null>
}

/** An event as its statement wrote it (EventJsonSql), with its stack, whose frames are resolved when read. */
export interface EventJsonRow {
  json: string
  duration: number | null
  stack: string | null
}

/** An event row of a page of EventJsonRow, with the (createdAt, seq) of a cursor after it. */
export type EventJsonPageRow = EventJsonRow & Pick<EventRow, 'created_at' | 'seq'>

/** All events of a session in the order they happened; equal times keep the order received. Given `json`, as the statement writes them. */
export function listEvents(db: Db, projectId: string, sessionId: string): Promise<EventRow[]>
export function listEvents(db: Db, projectId: string, sessionId: string, json: EventJsonSql): Promise<EventJsonRow[]>
export function listEvents(db: Db, projectId: string, sessionId: string, json?: EventJsonSql): Promise<EventRow[] | EventJsonRow[]> {
  const q = sessionEvents(db, projectId, sessionId)
  return json === undefined ? q.execute() : q.clearSelect().select(eventJsonColumns(json)).execute()
}

const sessionEvents = (db: Db, projectId: string, sessionId: string) =>
  db.selectFrom('events').select(eventColumns)
    .where('project_id', '=', projectId).where('session_id', '=', sessionId)
    .orderBy('created_at').orderBy('seq')

const eventJsonColumns = (json: EventJsonSql) => [json.json.as('json'), json.duration.as('duration'), 'stack'] as const

/** One page of a session's events after a (createdAt, seq) cursor, in the order they happened. Given `json`, as the statement writes them. */
export function eventsAfter(
  db: Db, projectId: string, sessionId: string, after: { createdAt: number; seq: number } | null, limit: number,
): Promise<EventRow[]>
export function eventsAfter(
  db: Db, projectId: string, sessionId: string, after: { createdAt: number; seq: number } | null, limit: number, json: EventJsonSql,
): Promise<EventJsonPageRow[]>
export function eventsAfter(
  db: Db, projectId: string, sessionId: string, after: { createdAt: number; seq: number } | null, limit: number, json?: EventJsonSql,
): Promise<EventRow[] | EventJsonPageRow[]> {
  let q = sessionEvents(db, projectId, sessionId)
  if (after) q = q.where(rowAfter(['created_at', 'seq'], [after.createdAt, after.seq]))
  q = q.limit(limit)
  return json === undefined ? q.execute() : q.clearSelect().select(['created_at', 'seq', ...eventJsonColumns(json)]).execute()
}

/** Sessions in startedAt order after a keyset cursor: the export walks a project with it. */
export function sessionsAfter(
  db: Db, projectId: string, range: SessionRange, after: { startedAt: number; id: string } | null, limit: number,
): Promise<SessionListRow[]> {
  let q = liveSessions(db, projectId, range)
  if (after) q = q.where(rowAfter(['started_at', 'id'], [after.startedAt, after.id]))
  return q.orderBy('started_at').orderBy('id').limit(limit).execute()
}

/** The live session a session key names, read without touching it; null when there is none. */
export async function liveSessionId(db: Db, projectId: string, sessionKey: string, cutoff: number): Promise<string | null> {
  const row = await db.selectFrom('sessions').select('id').where('project_id', '=', projectId)
    .where('session_key', '=', sessionKey).where('last_seen_at', '>=', cutoff).executeTakeFirst()
  return row?.id ?? null
}

/**
 * The key of the latest visit of a user, or of an IP address with a User-Agent, active since `since`; null when
 * there is none. A Sentry error that names no replay joins that visit (docs/sentry.md). A user's visits come from
 * the user's index, however busy the project; an address is looked for among the `scan` most recently active
 * visits only, so the lookup costs the same on a project with a million visits an hour.
 */
export async function recentSessionKey(
  db: Db, projectId: string, who: { userId: string } | { ip: string; userAgent: string | null }, since: number, scan: number,
): Promise<string | null> {
  if ('userId' in who) {
    if (!canMatch(who.userId)) return null
    // Unindexed time: the user's index leads (a user has few visits), not the list order's walk over every recent visit.
    const row = await db.selectFrom('sessions').select('session_key')
      .where('project_id', '=', projectId).where('user_id', '=', who.userId).where(unindexed('last_seen_at'), '>=', since)
      .orderBy(unindexed('last_seen_at'), 'desc').limit(1).executeTakeFirst()
    return row?.session_key ?? null
  }
  if (!canMatch(who.ip) || (who.userAgent !== null && !canMatch(who.userAgent))) return null
  const recent = db.selectFrom('sessions').select(['session_key', 'ip', 'user_agent', 'last_seen_at', 'id'])
    .where('project_id', '=', projectId).where('last_seen_at', '>=', since)
    .orderBy('last_seen_at', 'desc').orderBy('id', 'desc').limit(scan).as('recent')
  const row = await db.selectFrom(recent).select('session_key')
    .where('ip', '=', who.ip).where('user_agent', who.userAgent === null ? 'is' : '=', who.userAgent)
    .orderBy('last_seen_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst()
  return row?.session_key ?? null
}

export type ChunkMetaRow = Pick<Selectable<RecordingChunkTable>, 'id' | 'started_at' | 'ended_at' | 'events' | 'bytes' | 'full_snapshot'>

/** The stored (not dropped) chunks of a session in recording order. */
export function listChunks(db: Db, projectId: string, sessionId: string): Promise<ChunkMetaRow[]> {
  return db.selectFrom('recording_chunks')
    .select(['id', 'started_at', 'ended_at', 'events', 'bytes', 'full_snapshot'])
    .where('project_id', '=', projectId).where('session_id', '=', sessionId).where('data', 'is not', null)
    .orderBy('started_at').orderBy('id').execute()
}

/** The compressed data of one stored chunk. */
export async function chunkData(db: Db, projectId: string, sessionId: string, chunkId: string): Promise<Buffer | null> {
  if (!canMatch(chunkId)) return null
  const row = await db.selectFrom('recording_chunks').select('data')
    .where('project_id', '=', projectId).where('session_id', '=', sessionId).where('id', '=', chunkId)
    .executeTakeFirst()
  return row?.data ?? null
}

/** The stored chunks of a session with their data, in recording order (export). */
export function chunksWithData(db: Db, projectId: string, sessionId: string): Promise<{ id: string; started_at: number; data: Buffer | null }[]> {
  return db.selectFrom('recording_chunks').select(['id', 'started_at', 'data'])
    .where('project_id', '=', projectId).where('session_id', '=', sessionId).where('data', 'is not', null)
    .orderBy('started_at').orderBy('id').execute()
}

const issueColumns = [
  'id', 'grouping_version', 'type', 'title', 'culprit', 'first_seen_at', 'last_seen_at', 'events', 'sessions', 'status',
] as const satisfies readonly (keyof IssueTable)[]
export type IssueRow = Pick<Selectable<IssueTable>, (typeof issueColumns)[number]>

/** Issues whose lastSeenAt is in [from, to), of one status or all. */
interface IssueFilter {
  status?: IssueStatus
  from?: number
  to?: number
}

/** The orders the dashboard offers; the API lists by last seen. */
export type IssueOrder = 'last_seen' | 'events' | 'sessions'

function issuesMatching(db: Db, projectId: string, filter: IssueFilter) {
  let q = db.selectFrom('issues').where('project_id', '=', projectId)
  if (filter.status !== undefined) q = q.where('status', '=', filter.status)
  if (filter.from !== undefined) q = q.where('last_seen_at', '>=', filter.from)
  if (filter.to !== undefined) q = q.where('last_seen_at', '<', filter.to)
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
  if (filter.from === undefined && filter.to === undefined) {
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
 * Recent live visits that hit the issue, the ones with a screen recording first: from the issue's links (without the
 * issue as the plan's driver, each of the project's visits was probed for it: 1.66 s for an issue of 20,000 visits
 * among 1M, against 135 ms).
 */
export function issueVisits(db: Db, projectId: string, issueId: string, cutoff: number, limit: number): Promise<SessionListRow[]> {
  return liveSessions(db, projectId, { cutoff }, { issue: issueId }, { drive: 'filter', driver: { issue: issueId } })
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

/** An event that says what happened in a visit, as its list row shows it. */
export type HeadlineRow = Pick<Selectable<EventTable>, 'session_id' | 'type' | 'message' | 'url' | 'method' | 'status_code'>

/**
 * The first error (ERROR or HTTP_ERROR) and the first visitor report of each of these visits: what the
 * dashboard's list says broke. Only visits that have errors or a report are read (the page's counters and
 * session_terms say which), so a calm page costs one index probe; each of those reads its own events by
 * events_order_idx and keeps the first of each kind.
 */
export async function visitHeadlines(
  db: Db, projectId: string, sessions: readonly { id: string; errors: number }[],
): Promise<HeadlineRow[]> {
  if (sessions.length === 0) return []
  const reported = await db.selectFrom('session_terms').select('session_id')
    .where('project_id', '=', projectId).where('term', '=', term.type('USER_REPORT'))
    .where('session_id', 'in', sessions.map((s) => s.id)).execute()
  const ids = new Set([...sessions.filter((s) => s.errors > 0).map((s) => s.id), ...reported.map((r) => r.session_id)])
  if (ids.size === 0) return []
  const firsts = db.selectFrom('events')
    .select(['session_id', 'type', 'message', 'url', 'method', 'status_code'])
    .select(sql<number>`row_number() over (partition by session_id, type = 'USER_REPORT' order by created_at, seq)`.as('n'))
    .where('project_id', '=', projectId).where('session_id', 'in', [...ids])
    .where('type', 'in', [...ERROR_TYPES, 'USER_REPORT'])
    .as('firsts')
  return db.selectFrom(firsts).select(['session_id', 'type', 'message', 'url', 'method', 'status_code']).where('n', '=', 1).execute()
}
