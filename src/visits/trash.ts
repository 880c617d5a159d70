/**
 * `recording_trash`: objects of the recording stores whose chunk rows are gone (retention, erasure, a budget, a
 * retry's second copy), recorded in the transaction that removed the rows and deleted from their store after it
 * commits (src/recording/upkeep.ts). A crash or a store outage between the two leaves the row here, not an orphan.
 */
import type { Db } from '../database.ts'

export interface BlobRef { store_id: number; blob: string }

/** Records objects to delete from their stores; one already recorded stays as it is. */
export async function trashBlobs(trx: Db, refs: readonly BlobRef[], now: number): Promise<void> {
  for (let i = 0; i < refs.length; i += TRASH_INSERT_ROWS) {
    await trx.insertInto('recording_trash')
      .values(refs.slice(i, i + TRASH_INSERT_ROWS).map((r) => ({ store_id: r.store_id, blob: r.blob, trashed_at: now })))
      .onConflict((oc) => oc.columns(['store_id', 'blob']).doNothing()).execute()
  }
}

/** Rows per insert: 3 parameters each, well under SQLite's and PostgreSQL's parameter limits. */
const TRASH_INSERT_ROWS = 300

/** Up to `limit` trashed objects, oldest first. */
export function trashedBlobs(db: Db, limit: number): Promise<BlobRef[]> {
  return db.selectFrom('recording_trash').select(['store_id', 'blob']).orderBy('trashed_at').orderBy('store_id').orderBy('blob')
    .limit(limit).execute()
}

/** Forgets trashed objects once their store deleted them. */
export async function forgetTrashed(db: Db, storeId: number, blobs: readonly string[]): Promise<void> {
  for (let i = 0; i < blobs.length; i += TRASH_INSERT_ROWS) {
    await db.deleteFrom('recording_trash').where('store_id', '=', storeId).where('blob', 'in', blobs.slice(i, i + TRASH_INSERT_ROWS)).execute()
  }
}
