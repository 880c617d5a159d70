import type { Selectable } from 'kysely'
import type { Db } from '../db/database.ts'
import { AppError } from '../errors.ts'
import type { EventTable } from '../events/table.ts'
import { countTypes, type EventRecord } from '../events/types.ts'
import { adjustDay, deleteSessions } from '../retention/store.ts'
import type { SessionTable } from '../sessions/table.ts'
import { newId } from '../shared/ids.ts'
import { dayOf } from '../shared/time.ts'

/** What is known of a session before its events are stored. */
export interface SessionSeed {
  /** Import keeps the exported id; ingest leaves it to the server. */
  id?: string
  sessionKey: string
  ip: string | null
  country: string | null
  userAgent: string | null
  utm: Record<string, string> | null
  /** Bounds known besides the events' own times (import carries them). */
  startedAt?: number
  lastSeenAt?: number
}

export interface AppendResult {
  sessionId: string
  accepted: number
  duplicates: number
}

type SessionRow = Selectable<SessionTable>
/** Events per INSERT: well under both engines' bound-parameter limits (14 columns each). */
const INSERT_CHUNK = 500

/**
 * Stores a batch of events in its session, creating the session on first sight. Events already
 * stored (same id) are skipped, so a retried batch changes nothing; counters grow only by what
 * was new. Run inside a transaction: on PostgreSQL the seq reservation locks the session row,
 * which serializes concurrent batches of one session across processes.
 */
export async function appendEvents(
  trx: Db, projectId: string, seed: SessionSeed, events: readonly EventRecord[], cutoff: number, now: number,
): Promise<AppendResult> {
  let session = await findSession(trx, projectId, seed)
  if (session && session.last_seen_at < cutoff) {
    // An expired session is gone for readers; reviving it would resurrect old events.
    await deleteSessions(trx, projectId, [session])
    session = undefined
  }
  let first = seed.startedAt ?? Infinity
  let last = seed.lastSeenAt ?? -Infinity
  for (const e of events) {
    first = Math.min(first, e.createdAt)
    last = Math.max(last, e.createdAt)
  }
  const startedAt = Number.isFinite(first) ? first : now
  const lastSeenAt = Number.isFinite(last) ? last : startedAt

  const sessionId = session?.id ?? (await createSession(trx, projectId, seed, startedAt, lastSeenAt))
  const locked = await reserveSeq(trx, projectId, sessionId, events.length)
  const base = locked.next_seq - events.length
  const inserted: string[] = []
  for (let i = 0; i < events.length; i += INSERT_CHUNK) {
    const rows = events.slice(i, i + INSERT_CHUNK).map((e, j) => toRow(projectId, sessionId, base + i + j, e))
    const result = await trx.insertInto('events').values(rows)
      .onConflict((oc) => oc.columns(['project_id', 'session_id', 'id']).doNothing())
      .returning('type').execute()
    for (const r of result) inserted.push(r.type)
  }
  await updateSession(trx, locked, seed, inserted, Math.min(startedAt, locked.started_at),
    Math.max(lastSeenAt, locked.last_seen_at))
  return { sessionId, accepted: inserted.length, duplicates: events.length - inserted.length }
}

async function findSession(trx: Db, projectId: string, seed: SessionSeed): Promise<SessionRow | undefined> {
  const byKey = await trx.selectFrom('sessions').selectAll()
    .where('project_id', '=', projectId).where('session_key', '=', seed.sessionKey).executeTakeFirst()
  if (seed.id === undefined || byKey?.id === seed.id) return byKey
  if (byKey) {
    throw new AppError(409, 'invalid_body',
      `sessionKey "${seed.sessionKey}" already belongs to session ${byKey.id}, not ${seed.id}`)
  }
  return trx.selectFrom('sessions').selectAll()
    .where('project_id', '=', projectId).where('id', '=', seed.id).executeTakeFirst()
}

async function createSession(
  trx: Db, projectId: string, seed: SessionSeed, startedAt: number, lastSeenAt: number,
): Promise<string> {
  const id = seed.id ?? newId('', 12)
  const created = await trx.insertInto('sessions').values({
    project_id: projectId, id, session_key: seed.sessionKey, started_at: startedAt, start_day: dayOf(startedAt),
    last_seen_at: lastSeenAt, ip: seed.ip, country: seed.country, user_agent: seed.userAgent,
    utm: seed.utm ? JSON.stringify(seed.utm) : null,
    events_total: 0, events_errors: 0, events_slow: 0, recording_chunks: 0, next_seq: 0,
  }).onConflict((oc) => oc.columns(['project_id', 'session_key']).doNothing()).returning('id').executeTakeFirst()
  if (created) {
    await adjustDay(trx, projectId, dayOf(startedAt), 1)
    return created.id
  }
  // Another process created it between our read and insert: use theirs.
  const existing = await trx.selectFrom('sessions').select('id')
    .where('project_id', '=', projectId).where('session_key', '=', seed.sessionKey).executeTakeFirstOrThrow()
  return existing.id
}

async function reserveSeq(trx: Db, projectId: string, sessionId: string, n: number): Promise<SessionRow> {
  return trx.updateTable('sessions').set((eb) => ({ next_seq: eb('next_seq', '+', n) }))
    .where('project_id', '=', projectId).where('id', '=', sessionId)
    .returningAll().executeTakeFirstOrThrow()
}

async function updateSession(
  trx: Db, row: SessionRow, seed: SessionSeed, insertedTypes: string[], startedAt: number, lastSeenAt: number,
): Promise<void> {
  const add = countTypes(insertedTypes)
  const startDay = dayOf(startedAt)
  if (startDay !== row.start_day) {
    await adjustDay(trx, row.project_id, row.start_day, -1)
    await adjustDay(trx, row.project_id, startDay, 1)
  }
  await trx.updateTable('sessions').set({
    started_at: startedAt,
    start_day: startDay,
    last_seen_at: lastSeenAt,
    ip: row.ip ?? seed.ip,
    country: row.country ?? seed.country,
    user_agent: row.user_agent ?? seed.userAgent,
    utm: row.utm ?? (seed.utm ? JSON.stringify(seed.utm) : null),
    events_total: row.events_total + add.total,
    events_errors: row.events_errors + add.errors,
    events_slow: row.events_slow + add.slow,
  }).where('project_id', '=', row.project_id).where('id', '=', row.id).execute()
}

function toRow(projectId: string, sessionId: string, seq: number, e: EventRecord): EventTable {
  return {
    project_id: projectId, session_id: sessionId, id: e.id, seq, type: e.type, created_at: e.createdAt,
    url: e.url, method: e.method, message: e.message, stack: e.stack, status_code: e.statusCode,
    duration_ms: e.durationMs, req_body: e.reqBody, res_body: e.resBody,
  }
}
