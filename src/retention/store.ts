import type { Db } from '../db/database.ts'

export interface ExpiredRef {
  id: string
  start_day: number
}

/** The oldest sessions of a project whose last activity is before `cutoff`, at most `limit`. */
export function findExpired(db: Db, projectId: string, cutoff: number, limit: number): Promise<ExpiredRef[]> {
  return db.selectFrom('sessions').select(['id', 'start_day'])
    .where('project_id', '=', projectId).where('last_seen_at', '<', cutoff)
    .orderBy('last_seen_at').orderBy('id').limit(limit).execute()
}

/**
 * Deletes sessions with their events and keeps `session_days` exact. Call inside a transaction
 * so counters and rows change together. Counters drop by the rows this call actually deleted:
 * when two processes sweep the same sessions, the second finds them gone and changes nothing.
 * Returns how many sessions it deleted.
 */
export async function deleteSessions(db: Db, projectId: string, refs: readonly Pick<ExpiredRef, 'id'>[]): Promise<number> {
  if (refs.length === 0) return 0
  const ids = refs.map((r) => r.id)
  const deleted = await db.deleteFrom('sessions').where('project_id', '=', projectId).where('id', 'in', ids)
    .returning('start_day').execute()
  await db.deleteFrom('events').where('project_id', '=', projectId).where('session_id', 'in', ids).execute()
  const perDay = new Map<number, number>()
  for (const r of deleted) perDay.set(r.start_day, (perDay.get(r.start_day) ?? 0) + 1)
  for (const [day, n] of perDay) await adjustDay(db, projectId, day, -n)
  return deleted.length
}

/** Adds `delta` to one day's session counter; rows that reach zero are removed. */
export async function adjustDay(db: Db, projectId: string, day: number, delta: number): Promise<void> {
  if (delta > 0) {
    await db.insertInto('session_days').values({ project_id: projectId, day, sessions: delta })
      .onConflict((oc) => oc.columns(['project_id', 'day'])
        .doUpdateSet((eb) => ({ sessions: eb('session_days.sessions', '+', delta) })))
      .execute()
    return
  }
  await db.updateTable('session_days').set((eb) => ({ sessions: eb('sessions', '+', delta) }))
    .where('project_id', '=', projectId).where('day', '=', day).execute()
  await db.deleteFrom('session_days')
    .where('project_id', '=', projectId).where('day', '=', day).where('sessions', '<=', 0).execute()
}
