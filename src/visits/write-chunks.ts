/**
 * A visit's recording chunks as writeBatches (write.ts) stores them, in the batch's savepoint or group: a private
 * step of that one write operation, in a file of its own for length.
 */
import type { Db } from '../database.ts'
import { addTerms, type DayDeltas, term } from '../search/index.ts'
import type { RecordingChunkTable } from './tables.ts'

/** A chunk checked by the service, ready to store; `data` null means it is dropped for `dropped`. */
export type ChunkRecord = Omit<RecordingChunkTable, 'project_id' | 'session_id' | 'received_at'>

export interface RecordingResult {
  /** Chunks stored, already stored (retries), and dropped for a size limit. */
  accepted: number; duplicates: number; dropped: number
  /** A chunk of this request was refused for the session's byte limit: the session takes no more. */
  full: boolean
}

/**
 * Stores a session's recording chunks and grows its counters by what was new. Runs in the ingest
 * transaction after the session row is locked (PostgreSQL), so the per-session byte limit holds
 * under concurrent uploads. A chunk over the limit keeps a row without data: its retries are
 * recognized and it is counted once.
 */
export async function appendChunks(
  trx: Db, projectId: string, sessionId: string, chunks: readonly ChunkRecord[], maxSessionBytes: number, now: number, days: DayDeltas,
): Promise<RecordingResult> {
  const result: RecordingResult = { accepted: 0, duplicates: 0, dropped: 0, full: false }
  if (chunks.length === 0) return result
  const session = await trx.selectFrom('sessions').select(['id', 'recording_bytes', 'start_day', 'num', 'terms'])
    .where('project_id', '=', projectId).where('id', '=', sessionId).executeTakeFirstOrThrow()
  let bytes = session.recording_bytes
  for (const chunk of chunks) {
    const overLimit = chunk.data !== null && bytes + chunk.bytes > maxSessionBytes
    result.full ||= overLimit
    const row = overLimit ? { ...chunk, data: null, dropped: 'session_limit' } : chunk
    const inserted = await trx.insertInto('recording_chunks')
      .values({ ...row, project_id: projectId, session_id: sessionId, received_at: now })
      .onConflict((oc) => oc.columns(['project_id', 'session_id', 'id']).doNothing())
      .executeTakeFirst()
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
      result.duplicates++
    } else if (row.data === null) {
      result.dropped++
    } else {
      result.accepted++
      bytes += row.bytes
    }
  }
  if (result.accepted + result.dropped > 0) {
    await trx.updateTable('sessions').set((eb) => ({
      recording_chunks: eb('recording_chunks', '+', result.accepted),
      recording_bytes: eb('recording_bytes', '+', bytes - session.recording_bytes),
      recording_dropped: eb('recording_dropped', '+', result.dropped),
    })).where('project_id', '=', projectId).where('id', '=', sessionId).execute()
  }
  if (result.accepted > 0) await addTerms(trx, projectId, session, new Set([term.recording]), days)
  return result
}

