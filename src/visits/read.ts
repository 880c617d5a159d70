import type { Selectable } from 'kysely'
import { canMatch, type Db } from '../db/database.ts'
import { positive, rowAfter, textContains, unindexed, unindexedText } from '../db/sql.ts'
import { notFound } from '../errors.ts'
import { retentionCutoff, type ProjectContext } from '../projects/service.ts'
import { DAY_MS, dayOf } from '../shared/time.ts'
import type { EventTable, IssueStatus, IssueTable, RecordingChunkTable, SessionTable } from './tables.ts'
import { FACT_COLUMNS } from './facts.ts'

/** A session as the reads return it: its own columns, with its visitor facts (facts.ts) after its times. */
export const sessionColumns = [
  'id', 'session_key', 'started_at', 'last_seen_at', ...FACT_COLUMNS,
  'events_total', 'events_errors', 'events_slow', 'recording_chunks', 'recording_bytes', 'recording_dropped',
] as const satisfies readonly (keyof SessionTable)[]
export type SessionListRow = Pick<Selectable<SessionTable>, (typeof sessionColumns)[number]>

export const eventColumns = [
  'seq', 'id', 'type', 'created_at', 'url', 'method', 'message', 'stack', 'status_code', 'duration_ms', 'req_body', 'res_body',
  'fingerprint', 'issue_id',
] as const satisfies readonly (keyof EventTable)[]
export type EventRow = Pick<Selectable<EventTable>, (typeof eventColumns)[number]>

/** Sessions whose startedAt is in [from, to) and that are not past `cutoff` (retention). */
export interface SessionRange {
  from?: number
  to?: number
  cutoff: number
}

/**
 * One page of sessions, most recent activity first, id breaking ties so pages never overlap.
 * A range that is exactly one UTC day walks `sessions_day_last_seen_idx`, already in list order.
 * `drive` says where the planner starts: `order` walks the lastSeenAt index and checks each visit against the
 * filters (right when many visits match: the first page stops after a few rows), `filter` starts from what the
 * filters match and sorts it (right when few do). The caller decides from the count it has anyway.
 */
export function listSessions(
  db: Db, projectId: string, range: SessionRange, page: { limit: number; offset: number }, filters: SessionFilters = {},
  drive: 'order' | 'filter' = filters.issue === undefined ? 'order' : 'filter',
): Promise<SessionListRow[]> {
  // From the filter, `+last_seen_at` keeps the planner off the project's lastSeenAt index: it starts from the
  // filter's index or subquery and sorts what it found.
  const order = drive === 'order' ? 'last_seen_at' : unindexed('last_seen_at')
  return liveSessions(db, projectId, range, filters, drive)
    .orderBy(order, 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute()
}

/** The list's filters (API v1 extensions and the dashboard's); each narrows the list, all must hold. */
export interface SessionFilters {
  /** At least one ERROR or HTTP_ERROR. */
  errors?: boolean
  /** A stored screen recording. */
  recording?: boolean
  /** Hit this issue. */
  issue?: string
  /** Identified as this user id (exact). */
  user?: string
  country?: string
  /** Family names as stored (agent.ts browserFamily, osFamily). */
  browser?: string
  os?: string
  /** A page of the visit contains this text (case-insensitive, 3+ characters). */
  url?: string
  /** Each of these texts occurs in the visit's searchable text (case-insensitive, 3+ characters each). */
  q?: readonly string[]
  /** session_terms the visit has, every one (search.ts `term`). */
  terms?: readonly string[]
}

/** Whether any filter but the range is set. */
export const isFiltered = (f: SessionFilters): boolean =>
  f.errors === true || f.recording === true || f.issue !== undefined || f.user !== undefined || f.country !== undefined
  || f.browser !== undefined || f.os !== undefined || f.url !== undefined || (f.q?.length ?? 0) > 0 || (f.terms?.length ?? 0) > 0

/**
 * Live sessions in a range matching the filters, counted exactly, or up to `cap` (the dashboard shows "cap+").
 * Without a from/to range the count reads only the filters' indexes: the visits matching them, less those
 * matching them that are past retention and not yet swept (few, found from the lastSeenAt index).
 */
export async function countFiltered(
  db: Db, projectId: string, range: SessionRange, filters: SessionFilters, cap = Number.MAX_SAFE_INTEGER,
): Promise<number> {
  const count = async (q: ReturnType<typeof liveSessions>) => Number((await db.selectFrom(q.clearSelect().select('id').limit(cap).as('s'))
    .select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n)
  // Capped (the dashboard), the count stops early along the list order; over a range, the filters lead.
  if (cap !== Number.MAX_SAFE_INTEGER) return count(liveSessions(db, projectId, range, filters, 'order'))
  if (range.from !== undefined || range.to !== undefined) return count(liveSessions(db, projectId, range, filters, 'filter'))
  const all = await count(matching(db, projectId, filters, 'filter'))
  const expired = await count(matching(db, projectId, filters, 'order').where('last_seen_at', '<', range.cutoff))
  return all - expired
}

/** The project's sessions not past retention whose startedAt is in the range (one UTC day: by start_day). */
function liveSessions(db: Db, projectId: string, range: SessionRange, filters: SessionFilters = {}, drive: 'order' | 'filter' = 'order') {
  const q = matching(db, projectId, filters, drive)
    .where(drive === 'order' ? 'last_seen_at' : unindexed('last_seen_at'), '>=', range.cutoff)
  const day = singleDay(range)
  if (day !== null) return q.where('start_day', '=', day)
  let ranged = q
  if (range.from !== undefined) ranged = ranged.where('started_at', '>=', range.from)
  if (range.to !== undefined) ranged = ranged.where('started_at', '<', range.to)
  return ranged
}

/**
 * The project's sessions matching the filters, any age. Driven by `order`, column filters are spelled so no
 * index serves them and term filters probe session_terms per visit (EXISTS), so the planner walks the list
 * order; driven by `filter`, they use their indexes and term filters are subqueries to start from.
 * Text filters always start from the trigram index: probing it once per visit would search it once per visit.
 */
function matching(db: Db, projectId: string, filters: SessionFilters, drive: 'order' | 'filter') {
  let q = db.selectFrom('sessions').select(sessionColumns).where('project_id', '=', projectId)
  // Spelled as the partial indexes are, so any planner can match them.
  if (filters.errors) q = q.where(positive('events_errors'))
  if (filters.recording) q = q.where(positive('recording_chunks'))
  for (const column of ['user', 'country', 'browser', 'os'] as const) {
    const value = filters[column]
    if (value === undefined) continue
    const name = column === 'user' ? 'user_id' : column
    q = q.where(drive === 'order' ? unindexedText(name) : name, '=', value)
  }
  const issue = filters.issue
  if (issue !== undefined) {
    q = q.where('id', 'in', (eb) => eb.selectFrom('issue_sessions').select('session_id')
      .where('project_id', '=', projectId).where('issue_id', '=', issue))
  }
  for (const t of filters.terms ?? []) {
    q = drive === 'order'
      ? q.where((eb) => eb.exists(eb.selectFrom('session_terms as t').select('t.session_id').whereRef('t.project_id', '=', 'sessions.project_id')
        .where('t.term', '=', t).whereRef('t.session_id', '=', 'sessions.id')))
      : q.where('id', 'in', (eb) => eb.selectFrom('session_terms').select('session_id').where('project_id', '=', projectId).where('term', '=', t))
  }
  if (filters.url !== undefined) q = q.where('id', 'in', textContains(db, projectId, 'page', filters.url))
  for (const text of filters.q ?? []) q = q.where('id', 'in', textContains(db, projectId, 'body', text))
  return q
}

/**
 * Exact number of live sessions in a range without counting rows one by one: whole days come
 * from `session_days`, partial days at the edges are counted on the startedAt index, and
 * sessions past retention that the sweeper has not removed yet (few, by construction) are
 * subtracted through the lastSeenAt index.
 */
export async function countSessions(db: Db, projectId: string, range: SessionRange): Promise<number> {
  const firstFull = range.from === undefined ? undefined : Math.ceil(range.from / DAY_MS)
  const endFull = range.to === undefined ? undefined : Math.floor(range.to / DAY_MS)
  let total = 0
  if (firstFull === undefined || endFull === undefined || firstFull < endFull) {
    let days = db.selectFrom('session_days').select((eb) => eb.fn.sum<number | string | null>('sessions').as('n'))
      .where('project_id', '=', projectId)
    if (firstFull !== undefined) days = days.where('day', '>=', firstFull)
    if (endFull !== undefined) days = days.where('day', '<', endFull)
    total += Number((await days.executeTakeFirst())?.n ?? 0)
    if (range.from !== undefined && firstFull !== undefined) {
      total += await countStarted(db, projectId, range.from, firstFull * DAY_MS)
    }
    if (range.to !== undefined && endFull !== undefined) {
      total += await countStarted(db, projectId, endFull * DAY_MS, range.to)
    }
  } else {
    total += await countStarted(db, projectId, range.from, range.to)
  }
  // `+started_at` keeps the planner off the startedAt index: the sessions past retention are few and
  // sit at one end of the lastSeenAt index, while a day of startedAt is ~30k rows (5 µs vs 9.5 ms, measured).
  let expired = db.selectFrom('sessions').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', projectId).where('last_seen_at', '<', range.cutoff)
  if (range.from !== undefined) expired = expired.where(unindexed('started_at'), '>=', range.from)
  if (range.to !== undefined) expired = expired.where(unindexed('started_at'), '<', range.to)
  total -= Number((await expired.executeTakeFirstOrThrow()).n)
  return total
}

async function countStarted(db: Db, projectId: string, from?: number, to?: number): Promise<number> {
  if (from !== undefined && to !== undefined && from >= to) return 0
  let q = db.selectFrom('sessions').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', projectId)
  if (from !== undefined) q = q.where('started_at', '>=', from)
  if (to !== undefined) q = q.where('started_at', '<', to)
  return Number((await q.executeTakeFirstOrThrow()).n)
}

function singleDay(range: SessionRange): number | null {
  const { from, to } = range
  return from !== undefined && to !== undefined && from % DAY_MS === 0 && to - from === DAY_MS ? from / DAY_MS : null
}

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

/** All events of a session in the order they happened; equal times keep the order received. */
export function listEvents(db: Db, projectId: string, sessionId: string): Promise<EventRow[]> {
  return sessionEvents(db, projectId, sessionId).execute()
}

const sessionEvents = (db: Db, projectId: string, sessionId: string) =>
  db.selectFrom('events').select(eventColumns)
    .where('project_id', '=', projectId).where('session_id', '=', sessionId)
    .orderBy('created_at').orderBy('seq')

/** One page of a session's events after a (createdAt, seq) cursor, in the order they happened. */
export function eventsAfter(
  db: Db, projectId: string, sessionId: string, after: { createdAt: number; seq: number } | null, limit: number,
): Promise<EventRow[]> {
  let q = sessionEvents(db, projectId, sessionId)
  if (after) q = q.where(rowAfter(['created_at', 'seq'], [after.createdAt, after.seq]))
  return q.limit(limit).execute()
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

/** One page of issues, most recent last seen first (or most events, most visits), id breaking ties. */
export function listIssues(
  db: Db, projectId: string, filter: IssueFilter, page: { limit: number; offset: number }, order: IssueOrder = 'last_seen',
): Promise<IssueRow[]> {
  const q = issuesMatching(db, projectId, filter).select(issueColumns)
  const sorted = order === 'last_seen' ? q.orderBy('last_seen_at', 'desc') : q.orderBy(order, 'desc').orderBy('last_seen_at', 'desc')
  return sorted.orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute()
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

/** Recent live visits that hit the issue, the ones with a screen recording first. */
export function issueVisits(db: Db, projectId: string, issueId: string, cutoff: number, limit: number): Promise<SessionListRow[]> {
  return liveSessions(db, projectId, { cutoff }, { issue: issueId }, 'filter')
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
