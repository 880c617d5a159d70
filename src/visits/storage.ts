/**
 * The chunk rows as `sessionwatch storage check` and `storage migrate` (src/recording/storage.ts) see them: pages of
 * the rows a store holds, and the two writes those commands make, `moveChunk` and `dropMissingChunk`, each one
 * transaction that changes a row only if it still points where the command read it pointing.
 */
import type { Kysely } from 'kysely'
import type { Database, Db } from '../database.ts'
import { retrying } from '../db/errors.ts'
import { rowAfter } from '../db/sql.ts'
import { DayDeltas, dropTerm, term } from '../search/index.ts'
import { trashBlobs, type BlobRef } from './trash.ts'

/** A chunk row by its key. */
export interface ChunkKey { project_id: string; session_id: string; id: string }

/** Where a chunk's data is: in a store (`store_id`, `blob`), or inline in its row (`database`). */
export type ChunkPlace = BlobRef | 'database'

/** A chunk of a store, as the migration pages through them: its key, where it is and its size. */
export interface PlacedChunk extends ChunkKey { store_id: number | null; blob: string | null; bytes: number }

/** Rows of `place` (a page, after `after` in key order), without their data: the migration reads each on its own. */
export function chunksIn(db: Db, place: number | 'database', after: ChunkKey | null, limit: number): Promise<PlacedChunk[]> {
  let q = db.selectFrom('recording_chunks').select(['project_id', 'session_id', 'id', 'store_id', 'blob', 'bytes'])
  q = place === 'database' ? q.where('data', 'is not', null) : q.where('store_id', '=', place)
  if (after) q = q.where(rowAfter(['project_id', 'session_id', 'id'], [after.project_id, after.session_id, after.id]))
  return q.orderBy('project_id').orderBy('session_id').orderBy('id').limit(limit).execute()
}

/** How many chunks, and how many bytes, `place` holds. */
export async function countChunksIn(db: Db, place: number | 'database'): Promise<{ chunks: number; bytes: number }> {
  let q = db.selectFrom('recording_chunks')
    .select((eb) => [eb.fn.countAll<number | string>().as('chunks'), eb.fn.sum<number | string | null>('bytes').as('bytes')])
  q = place === 'database' ? q.where('data', 'is not', null) : q.where('store_id', '=', place)
  const row = await q.executeTakeFirst()
  return { chunks: Number(row?.chunks ?? 0), bytes: Number(row?.bytes ?? 0) }
}

/** A page of one project's chunks in a store, after (session, chunk) in key order: what the check compares a listing with. */
export function projectChunksIn(
  db: Db, projectId: string, storeId: number, after: { session_id: string; id: string } | null, limit: number,
): Promise<(ChunkKey & { blob: string })[]> {
  let q = db.selectFrom('recording_chunks').select(['project_id', 'session_id', 'id', 'blob'])
    .where('project_id', '=', projectId).where('store_id', '=', storeId).where('blob', 'is not', null)
  if (after) q = q.where(rowAfter(['session_id', 'id'], [after.session_id, after.id]))
  return q.orderBy('session_id').orderBy('id').limit(limit).execute() as Promise<(ChunkKey & { blob: string })[]>
}

/**
 * Which of these objects of a store a project's chunk row or the trash names, read now. The chunk side reads the
 * project's rows by their key's first column; the trash side by its key.
 */
export async function namedBlobs(db: Db, projectId: string, storeId: number, blobs: readonly string[]): Promise<Set<string>> {
  const named = new Set<string>()
  for (let i = 0; i < blobs.length; i += NAMED_BATCH) {
    const some = blobs.slice(i, i + NAMED_BATCH)
    const rows = await db.selectFrom('recording_chunks').select('blob').where('project_id', '=', projectId)
      .where('store_id', '=', storeId).where('blob', 'in', some)
      .union(db.selectFrom('recording_trash').select('blob').where('store_id', '=', storeId).where('blob', 'in', some))
      .execute()
    for (const r of rows) if (r.blob !== null) named.add(r.blob)
  }
  return named
}

/** Keys per `in` list: two lists of them stay well under both engines' parameter limits. */
const NAMED_BATCH = 400

/**
 * Points a chunk's row at its copy in `to` (or keeps its data inline, for `database`), in one transaction, only if
 * the row still points at `from`: the service may have deleted or moved it since it was read. The `from` object
 * goes to the trash in the same transaction, so a crash after it leaves a trash row, never an orphan; when the row
 * no longer points at `from`, the `to` copy is trashed instead. Returns whether the row moved.
 */
export function moveChunk(
  db: Kysely<Database>, key: ChunkKey, from: ChunkPlace, to: BlobRef | { data: Buffer }, now: number,
): Promise<boolean> {
  return retrying(() => db.transaction().execute(async (trx) => {
    let q = trx.updateTable('recording_chunks')
      .set('data' in to ? { data: to.data, store_id: null, blob: null } : { data: null, store_id: to.store_id, blob: to.blob })
      .where('project_id', '=', key.project_id).where('session_id', '=', key.session_id).where('id', '=', key.id)
    q = from === 'database' ? q.where('data', 'is not', null) : q.where('store_id', '=', from.store_id).where('blob', '=', from.blob)
    const moved = Number((await q.executeTakeFirst()).numUpdatedRows) > 0
    const trashed = moved ? (from === 'database' ? null : from) : ('data' in to ? null : to)
    if (trashed) await trashBlobs(trx, [trashed], now)
    return moved
  }))
}

/** The row was deleted or changed before `dropMissingChunk` got to it: nothing of the transaction stays. */
class Changed extends Error {}

/**
 * Marks a chunk whose object its store has lost as dropped (`missing`), in one transaction, if the row still points
 * at that object: the session counts one chunk fewer and one more dropped, so the API stops listing a chunk it cannot
 * serve, and a visit left with no chunk leaves the "with replay" filter. The session row is updated before the chunk,
 * the order every writer takes. Returns whether it was marked.
 */
export async function dropMissingChunk(db: Kysely<Database>, key: ChunkKey, at: BlobRef): Promise<boolean> {
  try {
    return await retrying(() => db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('recording_chunks').select('bytes').where('project_id', '=', key.project_id)
        .where('session_id', '=', key.session_id).where('id', '=', key.id)
        .where('store_id', '=', at.store_id).where('blob', '=', at.blob).executeTakeFirst()
      if (!row) return false
      const session = await trx.updateTable('sessions').set((eb) => ({
        recording_chunks: eb('recording_chunks', '-', 1), recording_bytes: eb('recording_bytes', '-', row.bytes),
        recording_dropped: eb('recording_dropped', '+', 1),
      })).where('project_id', '=', key.project_id).where('id', '=', key.session_id)
        .returning(['id', 'start_day', 'num', 'terms', 'recording_chunks']).executeTakeFirst()
      const marked = await trx.updateTable('recording_chunks').set({ data: null, store_id: null, blob: null, dropped: 'missing' })
        .where('project_id', '=', key.project_id).where('session_id', '=', key.session_id).where('id', '=', key.id)
        .where('store_id', '=', at.store_id).where('blob', '=', at.blob).executeTakeFirst()
      if (!session || Number(marked.numUpdatedRows) === 0) throw new Changed()
      const days = new DayDeltas()
      if (session.recording_chunks <= 0) await dropTerm(trx, key.project_id, [session], term.recording, days)
      days.addRecording(key.project_id, -row.bytes)
      await days.apply(trx)
      return true
    }))
  } catch (error) {
    if (error instanceof Changed) return false
    throw error
  }
}
