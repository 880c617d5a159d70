import { sql, type Selectable } from 'kysely'
import type { Db } from '../database.ts'
import { canMatch, rowAfter, unindexed } from '../db/sql.ts'
import { notFound } from '../errors.ts'
import { retentionCutoff, type ProjectContext } from '../projects/service.ts'
import { ERROR_TYPES } from '../contract/index.ts'
import { liveSessions, term, type SessionRange } from '../search/index.ts'
import { eventColumns, sessionColumns, type EventRow, type EventTable, type RecordingChunkTable, type SessionListRow, type SessionTable } from './tables.ts'



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

/**
 * The key and tags of the latest visit of a user, or of an IP address with a User-Agent that names no user, active
 * since `since`; null when there is none. A Sentry error that names no replay joins that visit (docs/sentry.md). A
 * user's visits come from the user's index, however busy the project; an address is looked for among the `scan` most
 * recently active visits only, so the lookup costs the same on a project with a million visits an hour.
 */
export async function recentSessionKey(
  db: Db, projectId: string, who: { userId: string } | { ip: string; userAgent: string | null }, since: number, scan: number,
): Promise<{ sessionKey: string; tags: Record<string, string> | null } | null> {
  const found = (row: { session_key: string; tags: string | null } | undefined) =>
    (row === undefined ? null : { sessionKey: row.session_key, tags: row.tags === null ? null : JSON.parse(row.tags) as Record<string, string> })
  if ('userId' in who) {
    if (!canMatch(who.userId)) return null
    // Unindexed time: the user's index leads (a user has few visits), not the list order's walk over every recent visit.
    return found(await db.selectFrom('sessions').select(['session_key', 'tags'])
      .where('project_id', '=', projectId).where('user_id', '=', who.userId).where(unindexed('last_seen_at'), '>=', since)
      .orderBy(unindexed('last_seen_at'), 'desc').limit(1).executeTakeFirst())
  }
  if (!canMatch(who.ip) || (who.userAgent !== null && !canMatch(who.userAgent))) return null
  const recent = db.selectFrom('sessions').select(['session_key', 'ip', 'user_agent', 'user_id', 'tags', 'last_seen_at', 'id'])
    .where('project_id', '=', projectId).where('last_seen_at', '>=', since)
    .orderBy('last_seen_at', 'desc').orderBy('id', 'desc').limit(scan).as('recent')
  return found(await db.selectFrom(recent).select(['session_key', 'tags'])
    .where('ip', '=', who.ip).where('user_agent', who.userAgent === null ? 'is' : '=', who.userAgent).where('user_id', 'is', null)
    .orderBy('last_seen_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst())
}

export type ChunkMetaRow = Pick<Selectable<RecordingChunkTable>, 'id' | 'started_at' | 'ended_at' | 'events' | 'bytes' | 'full_snapshot'>

/** The stored (not dropped) chunks of a session in recording order. */
export function listChunks(db: Db, projectId: string, sessionId: string): Promise<ChunkMetaRow[]> {
  return db.selectFrom('recording_chunks')
    .select(['id', 'started_at', 'ended_at', 'events', 'bytes', 'full_snapshot'])
    .where('project_id', '=', projectId).where('session_id', '=', sessionId).where('dropped', 'is', null)
    .orderBy('started_at').orderBy('id').execute()
}

/** How a visit was recorded, and what budgets took from its recording. */
export async function recordingKept(db: Db, projectId: string, sessionId: string): Promise<Pick<SessionTable, 'recording_mode' | 'recording_evicted'>> {
  const row = await db.selectFrom('sessions').select(['recording_mode', 'recording_evicted'])
    .where('project_id', '=', projectId).where('id', '=', sessionId).executeTakeFirst()
  return { recording_mode: row?.recording_mode ?? null, recording_evicted: row?.recording_evicted ?? 0 }
}

/** Where a stored chunk's compressed data is: inline (`data`), or in a store (`store_id`, `blob`). */
export type ChunkSource = Pick<Selectable<RecordingChunkTable>, 'data' | 'store_id' | 'blob'>

/** Where one stored chunk's data is; null for an unknown or dropped chunk. */
export async function chunkSource(db: Db, projectId: string, sessionId: string, chunkId: string): Promise<ChunkSource | null> {
  if (!canMatch(chunkId)) return null
  const row = await db.selectFrom('recording_chunks').select(['data', 'store_id', 'blob'])
    .where('project_id', '=', projectId).where('session_id', '=', sessionId).where('id', '=', chunkId).where('dropped', 'is', null)
    .executeTakeFirst()
  return row ?? null
}

/** The stored chunks of a session with where their data is, in recording order (export). */
export function chunkSources(db: Db, projectId: string, sessionId: string): Promise<(ChunkSource & { id: string; started_at: number })[]> {
  return db.selectFrom('recording_chunks').select(['id', 'started_at', 'data', 'store_id', 'blob'])
    .where('project_id', '=', projectId).where('session_id', '=', sessionId).where('dropped', 'is', null)
    .orderBy('started_at').orderBy('id').execute()
}

/** An event that says what happened in a visit, as its list row shows it. */
export type HeadlineRow = Pick<Selectable<EventTable>, 'session_id' | 'type' | 'message' | 'url' | 'method' | 'status_code'>

/** What a visitor's frustration leaves: the list shows these like errors, though they count as none. */
const FRUSTRATION_TYPES = ['RAGE_CLICK', 'DEAD_CLICK'] as const

/**
 * The first trouble (ERROR, HTTP_ERROR, RAGE_CLICK or DEAD_CLICK, whichever came first) and the first visitor report
 * of each of these visits: what the dashboard's list says broke. Only visits that have errors, a report or a
 * frustrated click are read (the page's counters and session_terms say which), so a calm page costs one index probe
 * per term; each of those reads its own events by events_order_idx and keeps the first of each kind.
 */
export async function visitHeadlines(
  db: Db, projectId: string, sessions: readonly { id: string; errors: number }[],
): Promise<HeadlineRow[]> {
  if (sessions.length === 0) return []
  const marked = await db.selectFrom('session_terms').select('session_id')
    .where('project_id', '=', projectId).where('term', 'in', ['USER_REPORT', ...FRUSTRATION_TYPES].map((t) => term.type(t)))
    .where('session_id', 'in', sessions.map((s) => s.id)).execute()
  const ids = new Set([...sessions.filter((s) => s.errors > 0).map((s) => s.id), ...marked.map((r) => r.session_id)])
  if (ids.size === 0) return []
  const firsts = db.selectFrom('events')
    .select(['session_id', 'type', 'message', 'url', 'method', 'status_code'])
    .select(sql<number>`row_number() over (partition by session_id, type = 'USER_REPORT' order by created_at, seq)`.as('n'))
    .where('project_id', '=', projectId).where('session_id', 'in', [...ids])
    .where('type', 'in', [...ERROR_TYPES, ...FRUSTRATION_TYPES, 'USER_REPORT'])
    .as('firsts')
  return db.selectFrom(firsts).select(['session_id', 'type', 'message', 'url', 'method', 'status_code']).where('n', '=', 1).execute()
}
