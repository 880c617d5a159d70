/**
 * A visit's recording chunks as writeBatches (write.ts) stores them, in the batch's savepoint or group: a private
 * step of that one write operation, in a file of its own for length.
 */
import type { Db } from '../database.ts'
import { addTerms, type DayDeltas, term } from '../search/index.ts'
import type { RecordingChunkTable } from './tables.ts'
import { trashBlobs } from './trash.ts'

/**
 * A chunk checked by the service, ready to store: its data inline (`data`), or already written to a store (`store_id`
 * and `blob`), or dropped for `dropped` (neither). `mode` is how the SDK records the visit (src/contract RecordingMode).
 */
export type ChunkRecord = Omit<RecordingChunkTable, 'project_id' | 'session_id' | 'received_at' | 'store_id' | 'blob'>
  & Partial<Pick<RecordingChunkTable, 'store_id' | 'blob'>> & { mode?: string }

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
  const session = await trx.selectFrom('sessions').select(['id', 'recording_bytes', 'recording_mode', 'start_day', 'num', 'terms'])
    .where('project_id', '=', projectId).where('id', '=', sessionId).executeTakeFirstOrThrow()
  let bytes = session.recording_bytes
  let mode: string | null = null
  /** Objects written for chunks this call does not keep (a retry's copy, one over the limit): deleted by the upkeep. */
  const unkept: { store_id: number; blob: string }[] = []
  for (const { mode: chunkMode, ...chunk } of chunks) {
    const overLimit = chunk.dropped === null && bytes + chunk.bytes > maxSessionBytes
    result.full ||= overLimit
    const row = overLimit ? { ...chunk, data: null, store_id: null, blob: null, dropped: 'session_limit' } : chunk
    if (overLimit && chunk.store_id != null && chunk.blob != null) unkept.push({ store_id: chunk.store_id, blob: chunk.blob })
    const inserted = await trx.insertInto('recording_chunks')
      .values({ ...row, project_id: projectId, session_id: sessionId, received_at: now })
      .onConflict((oc) => oc.columns(['project_id', 'session_id', 'id']).doNothing())
      .executeTakeFirst()
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
      result.duplicates++
      if (row.store_id != null && row.blob != null) unkept.push({ store_id: row.store_id, blob: row.blob })
    } else if (row.dropped !== null) {
      result.dropped++
    } else {
      result.accepted++
      bytes += row.bytes
      mode ??= chunkMode ?? 'whole'
    }
  }
  if (unkept.length > 0) await trashBlobs(trx, unkept, now)
  if (result.accepted + result.dropped > 0) {
    await trx.updateTable('sessions').set((eb) => ({
      recording_chunks: eb('recording_chunks', '+', result.accepted),
      recording_bytes: eb('recording_bytes', '+', bytes - session.recording_bytes),
      recording_dropped: eb('recording_dropped', '+', result.dropped),
      ...(session.recording_mode === null && mode !== null && { recording_mode: mode }),
    })).where('project_id', '=', projectId).where('id', '=', sessionId).execute()
  }
  if (result.accepted > 0) {
    addTerms(projectId, session, new Set([term.recording]), days)
    days.addRecording(projectId, bytes - session.recording_bytes)
  }
  return result
}

