/**
 * Deleting a project whole (`sessionwatch project delete`): its visits with everything that hangs on them, then every
 * other module's rows of it, its own row last, then its recordings' objects from their stores. Each step is
 * short transactions that leave the project consistent, so a run killed half-way is finished by running it again.
 */
import type { Kysely, Transaction } from 'kysely'
import * as accounts from '../accounts/store.ts'
import * as alerts from '../alerts/store.ts'
import type { Database } from '../database.ts'
import { retrying } from '../db/errors.ts'
import { holdWriters } from '../db/locks.ts'
import * as issues from '../issues/index.ts'
import * as quota from '../limits/quota.ts'
import type { RecordingStores } from '../recording/store/index.ts'
import { purgeTrash } from '../recording/upkeep.ts'
import * as pages from '../pages/index.ts'
import * as releases from '../releases/index.ts'
import * as replayLinks from '../replay-links/store.ts'
import * as search from '../search/index.ts'
import { deleteSourceMaps } from '../sourcemaps/store.ts'
import * as visits from '../visits/index.ts'
import { deleteProjectRow, forget } from './store.ts'

export interface DeletedProject {
  id: string
  /** Visits this run deleted. */
  visits: number
  /** Recording objects deleted from their stores (with any left in the trash before). */
  objects: number
}

/** Walks over the visits at most, each followed by a try at the final transaction, before giving up on ingest that never pauses. */
const ROUNDS = 10

/** The final transaction found visits that arrived after the walk: it rolls back and the walk runs again. */
class VisitsArrived extends Error {}

/** Deletes the project's rows in every module but visits and projects, in the caller's transaction. */
async function forgetRows(trx: Transaction<Database>, projectId: string): Promise<void> {
  await issues.forgetProject(trx, projectId)
  await search.forgetProject(trx, projectId)
  await releases.forgetProject(trx, projectId)
  await pages.forgetProject(trx, projectId)
  await alerts.forgetProject(trx, projectId)
  await deleteSourceMaps(trx, projectId, null)
  await quota.forgetProject(trx, projectId)
  await visits.forgetRecordingUsage(trx, projectId)
  await replayLinks.forgetProject(trx, projectId)
  await accounts.forgetProject(trx, projectId)
}

/**
 * Deletes the project and everything of it. Its visits go first, SWEEP_BATCH to a transaction as erasure walks them
 * (`onProgress` hears the running count), so a large project never holds the writers for long; then the other modules'
 * rows in one transaction; then a final one deletes its row after making sure no visit is left: it holds the visits'
 * writers (holdWriters) and, when a batch still in flight stored one after the walk passed, rolls back and walks again.
 * Its keys stop working when that commits, in this process at once (the project cache is forgotten). Then the trash
 * is purged: a store that is down keeps its objects there for the recording upkeep. A project already gone deletes
 * what rows of it are left and reports them.
 */
export async function deleteProject(
  db: Kysely<Database>, stores: RecordingStores, projectId: string, { onProgress }: { onProgress?: (visits: number) => void } = {},
): Promise<DeletedProject> {
  let deleted = 0
  for (let round = 1; ; round++) {
    const before = deleted
    deleted += await visits.eraseVisits(db, projectId, { all: true }, { onProgress: (n) => onProgress?.(before + n) })
    await retrying(() => db.transaction().execute((trx) => forgetRows(trx, projectId)))
    if (await finalTransaction(db, projectId)) break
    if (round >= ROUNDS) {
      throw new Error(`visits of project ${projectId} keep arriving: stop its ingest (project rotate-key --ingest) and run the deletion again`)
    }
  }
  forget(db)
  return { id: projectId, visits: deleted, objects: await purgeTrash(db, stores) }
}

/** Deletes the project's row and what arrived of it since forgetRows; false (nothing done) when a visit arrived. */
async function finalTransaction(db: Kysely<Database>, projectId: string): Promise<boolean> {
  try {
    await retrying(() => db.transaction().execute(async (trx) => {
      // A write first: on SQLite it makes this the one writer, before the check below.
      await deleteProjectRow(trx, projectId)
      await holdWriters(trx, 'sessions')
      if (await visits.hasVisits(trx, projectId)) throw new VisitsArrived()
      await forgetRows(trx, projectId)
    }))
    return true
  } catch (error) {
    if (error instanceof VisitsArrived) return false
    throw error
  }
}
