import type { Selectable } from 'kysely'
import { canMatch, type Db } from '../db/database.ts'
import type { RecordingChunkTable } from './table.ts'

/** A chunk checked by the service, ready to store; `data` null means it is dropped for `dropped`. */
export type ChunkRecord = Omit<RecordingChunkTable, 'project_id' | 'session_id' | 'received_at'>

export interface RecordingResult {
  accepted: number
  duplicates: number
  dropped: number
}

/**
 * Stores a session's recording chunks and grows its counters by what was new. Runs in the ingest
 * transaction after the session row is locked (PostgreSQL), so the per-session byte limit holds
 * under concurrent uploads. A chunk over the limit keeps a row without data: its retries are
 * recognized and it is counted once.
 */
export async function appendChunks(
  trx: Db, projectId: string, sessionId: string, chunks: readonly ChunkRecord[], maxSessionBytes: number, now: number,
): Promise<RecordingResult> {
  const result: RecordingResult = { accepted: 0, duplicates: 0, dropped: 0 }
  if (chunks.length === 0) return result
  const session = await trx.selectFrom('sessions').select('recording_bytes')
    .where('project_id', '=', projectId).where('id', '=', sessionId).executeTakeFirstOrThrow()
  let bytes = session.recording_bytes
  for (const chunk of chunks) {
    const overLimit = chunk.data !== null && bytes + chunk.bytes > maxSessionBytes
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
  return result
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

/** Removes the chunks of deleted sessions (retention, expired-session reuse). */
export async function deleteChunks(db: Db, projectId: string, sessionIds: readonly string[]): Promise<void> {
  if (sessionIds.length === 0) return
  await db.deleteFrom('recording_chunks').where('project_id', '=', projectId).where('session_id', 'in', sessionIds).execute()
}

/** The stored chunks of a session with their data, in recording order (export). */
export function chunksWithData(db: Db, projectId: string, sessionId: string): Promise<{ id: string; started_at: number; data: Buffer | null }[]> {
  return db.selectFrom('recording_chunks').select(['id', 'started_at', 'data'])
    .where('project_id', '=', projectId).where('session_id', '=', sessionId).where('data', 'is not', null)
    .orderBy('started_at').orderBy('id').execute()
}
