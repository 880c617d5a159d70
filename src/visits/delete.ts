import type { Kysely } from 'kysely'
import type { Database, Db } from '../db/database.ts'
import { DayDeltas } from './days.ts'
import { forgetVisits } from './issues.ts'

interface ExpiredRef {
  id: string
}

/** The oldest sessions of a project whose last activity is before `cutoff`, at most `limit`. */
function findExpired(db: Db, projectId: string, cutoff: number, limit: number): Promise<ExpiredRef[]> {
  return db.selectFrom('sessions').select(['id'])
    .where('project_id', '=', projectId).where('last_seen_at', '<', cutoff)
    .orderBy('last_seen_at').orderBy('id').limit(limit).execute()
}

/**
 * Deletes sessions with their events, recordings and issue links (their events leave the issues'
 * counts), and records the day-counter changes in `days` (apply them in the same transaction). Counters drop by the rows this call actually deleted: when two
 * processes sweep the same sessions, the second finds them gone and changes nothing.
 * Returns how many sessions it deleted.
 */
export async function deleteSessions(
  db: Db, projectId: string, refs: readonly ExpiredRef[], days: DayDeltas,
): Promise<number> {
  if (refs.length === 0) return 0
  const ids = refs.map((r) => r.id)
  const deleted = await db.deleteFrom('sessions').where('project_id', '=', projectId).where('id', 'in', ids)
    .returning(['id', 'start_day']).execute()
  // Only the visits this call deleted leave their issues' counts: after the sessions, so every writer
  // locks a visit's session row before its issues, and before the events, which they are counted from.
  await forgetVisits(db, projectId, deleted.map((r) => r.id))
  await db.deleteFrom('events').where('project_id', '=', projectId).where('session_id', 'in', ids).execute()
  await deleteChunks(db, projectId, ids)
  for (const r of deleted) days.add(projectId, r.start_day, -1)
  return deleted.length
}

/** Removes the chunks of deleted sessions (retention, expired-session reuse). */
async function deleteChunks(db: Db, projectId: string, sessionIds: readonly string[]): Promise<void> {
  if (sessionIds.length === 0) return
  await db.deleteFrom('recording_chunks').where('project_id', '=', projectId).where('session_id', 'in', sessionIds).execute()
}

/**
 * Deletes up to `limit` of a project's sessions whose last activity is before `cutoff` (the oldest
 * first), with their events and recordings, in one short transaction that also keeps the day
 * counters exact. Returns how many it deleted: 0 when none is left.
 */
export async function deleteExpired(db: Kysely<Database>, projectId: string, cutoff: number, limit: number): Promise<number> {
  const refs = await findExpired(db, projectId, cutoff, limit)
  if (refs.length === 0) return 0
  return db.transaction().execute(async (trx) => {
    const days = new DayDeltas()
    const deleted = await deleteSessions(trx, projectId, refs, days)
    await days.apply(trx)
    return deleted
  })
}
