/**
 * Recordings taken out of visits that stay: a project over its recording budget, or a disk under its floor, loses
 * its oldest recordings (src/recording/upkeep.ts decides which and when). The visit keeps its events and counts the
 * bytes it lost in `recording_evicted`; its chunks' objects go to the trash in the same transaction.
 */
import type { Kysely } from 'kysely'
import type { Database, Db } from '../database.ts'
import { retrying } from '../db/errors.ts'
import { deleteProjectRows } from '../db/rows.ts'
import { DayDeltas, dropTerm, term } from '../search/index.ts'
import { type BlobRef, trashBlobs } from './trash.ts'

export interface RecordedVisit { id: string; bytes: number }

/**
 * Up to `limit` of a project's visits that hold a recording, oldest first, after `after` (a visit id). Visit ids
 * begin with their start time, so id order is age order; the `has:recording` term lists exactly these visits, in
 * that order, so the walk reads only them.
 */
export async function oldestRecorded(db: Db, projectId: string, after: string | null, limit: number): Promise<RecordedVisit[]> {
  let q = db.selectFrom('session_terms as t')
    .innerJoin('sessions as s', (j) => j.onRef('s.project_id', '=', 't.project_id').onRef('s.id', '=', 't.session_id'))
    .select(['s.id', 's.recording_bytes as bytes'])
    .where('t.project_id', '=', projectId).where('t.term', '=', term.recording)
  if (after !== null) q = q.where('t.session_id', '>', after)
  const rows = await q.orderBy('t.session_id').limit(limit).execute()
  return rows.map((r) => ({ id: r.id, bytes: r.bytes }))
}

/** Recording bytes a project holds now, and what budgets and the disk floor took from it. */
export interface RecordingUsage { bytes: number; evictedBytes: number; evictedVisits: number }

export async function recordingUsage(db: Db, projectId: string): Promise<RecordingUsage> {
  const row = await db.selectFrom('recording_usage').select(['bytes', 'evicted_bytes', 'evicted_visits'])
    .where('project_id', '=', projectId).executeTakeFirst()
  return { bytes: row?.bytes ?? 0, evictedBytes: row?.evicted_bytes ?? 0, evictedVisits: row?.evicted_visits ?? 0 }
}

/**
 * Deletes the recordings of these visits in one transaction: their chunk rows, the `has:recording` term (the "with
 * replay" filter no longer finds them), and zero recording counters, the bytes moving to `recording_evicted`. The
 * session rows are updated before the chunks, the order every writer takes. Returns the bytes freed.
 */
export function evictRecordings(db: Kysely<Database>, projectId: string, sessionIds: readonly string[], now: number): Promise<number> {
  if (sessionIds.length === 0) return Promise.resolve(0)
  return retrying(() => db.transaction().execute(async (trx) => {
    const rows = await trx.updateTable('sessions')
      .set((eb) => ({ recording_evicted: eb('recording_evicted', '+', eb.ref('recording_bytes')), recording_bytes: 0, recording_chunks: 0 }))
      .where('project_id', '=', projectId).where('id', 'in', sessionIds).where('recording_chunks', '>', 0)
      .returning(['id', 'start_day', 'num', 'terms', 'recording_evicted']).execute()
    if (rows.length === 0) return 0
    const ids = rows.map((r) => r.id)
    const gone = await trx.deleteFrom('recording_chunks').where('project_id', '=', projectId).where('session_id', 'in', ids)
      .where('dropped', 'is', null).returning(['store_id', 'blob', 'bytes']).execute()
    await trashBlobs(trx, gone.filter((g): g is BlobRef & { bytes: number } => g.store_id !== null && g.blob !== null), now)
    const freed = gone.reduce((sum, g) => sum + g.bytes, 0)
    const days = new DayDeltas()
    await dropTerm(trx, projectId, rows, term.recording, days)
    days.addRecording(projectId, -freed, freed, rows.length)
    await days.apply(trx)
    return freed
  }))
}

/** Forgets a deleted project's recording counters (src/projects/delete.ts), once its visits are gone. */
export const forgetRecordingUsage = (trx: Db, projectId: string): Promise<void> => deleteProjectRows(trx, ['recording_usage'], projectId)
