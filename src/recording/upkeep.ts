/**
 * Recording upkeep, in the service every RECORDING_UPKEEP_SECONDS and in the CLI after commands that delete: objects
 * whose rows are gone are deleted from their stores (the trash), projects over their recording budget lose their
 * oldest recordings, and so do all projects while the `file:` store's disk is under RECORDINGS_MIN_FREE.
 */
import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'
import { listProjects } from '../projects/store.ts'
import { startPeriodic } from '../util/periodic.ts'
import * as visits from '../visits/index.ts'
import { EVICT_BATCH, RECORDING_UPKEEP_SECONDS, TRASH_BATCH } from './limits.ts'
import type { RecordingStores } from './store/index.ts'

/** Most rounds of eviction one upkeep runs for the disk floor, so one pass never holds the writers for long. */
const FLOOR_ROUNDS = 50

export interface UpkeepReport { purged: number; evictedVisits: number; evictedBytes: number }

/**
 * Deletes trashed objects from their stores, oldest first, until the trash is empty; a store that fails keeps its
 * objects in the trash for the next round. Returns how many objects were deleted.
 */
export async function purgeTrash(db: Kysely<Database>, stores: RecordingStores): Promise<number> {
  let purged = 0
  const failed = new Set<number>()
  for (;;) {
    const batch = (await visits.trashedBlobs(db, TRASH_BATCH)).filter((b) => !failed.has(b.store_id))
    if (batch.length === 0) return purged
    const byStore = new Map<number, string[]>()
    for (const b of batch) byStore.set(b.store_id, [...byStore.get(b.store_id) ?? [], b.blob])
    for (const [id, blobs] of byStore) {
      try {
        await (await stores.byId(id)).delete(blobs)
        await visits.forgetTrashed(db, id, blobs)
        purged += blobs.length
      } catch {
        failed.add(id)
      }
    }
    if (batch.length < TRASH_BATCH && failed.size === 0) return purged
  }
}

/** Deletes a project's oldest recordings until it holds at most `budget` bytes of recording. */
export async function enforceBudget(db: Kysely<Database>, projectId: string, budget: number, now: number): Promise<UpkeepReport> {
  const report: UpkeepReport = { purged: 0, evictedVisits: 0, evictedBytes: 0 }
  let excess = (await visits.recordingUsage(db, projectId)).bytes - budget
  let after: string | null = null
  while (excess > 0) {
    const oldest = await visits.oldestRecorded(db, projectId, after, EVICT_BATCH)
    if (oldest.length === 0) break
    // Only as many of the oldest as the excess needs: a budget is a ceiling, not a reason to delete more.
    const take: string[] = []
    let freeing = 0
    for (const v of oldest) {
      if (freeing >= excess) break
      take.push(v.id)
      freeing += v.bytes
    }
    const freed = await visits.evictRecordings(db, projectId, take, now)
    report.evictedVisits += take.length
    report.evictedBytes += freed
    excess -= freed
    after = oldest.at(-1)?.id ?? null
  }
  return report
}

/**
 * While the `file:` store's filesystem has less than `minFreeShare` free, deletes the oldest recordings of all projects
 * together (by visit age), as many a round as the shortfall's bytes, deleting their files before measuring again.
 */
export async function enforceFloor(db: Kysely<Database>, stores: RecordingStores, now: number): Promise<UpkeepReport> {
  const report: UpkeepReport = { purged: 0, evictedVisits: 0, evictedBytes: 0 }
  const store = stores.current?.store
  if (!store) return report
  for (let round = 0; round < FLOOR_ROUNDS; round++) {
    const disk = await store.disk()
    const needed = disk === null ? 0 : stores.config.minFreeShare * disk.total - disk.free
    if (needed <= 0) break
    const candidates: (visits.RecordedVisit & { projectId: string })[] = []
    for (const p of await listProjects(db)) {
      for (const v of await visits.oldestRecorded(db, p.id, null, EVICT_BATCH)) candidates.push({ ...v, projectId: p.id })
    }
    if (candidates.length === 0) break
    candidates.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    // The oldest, as many as free what the floor needs (files take a little more than their bytes: a round or two more).
    const byProject = new Map<string, string[]>()
    let freeing = 0
    for (const c of candidates.slice(0, EVICT_BATCH)) {
      if (freeing >= needed) break
      byProject.set(c.projectId, [...byProject.get(c.projectId) ?? [], c.id])
      freeing += c.bytes
    }
    for (const [projectId, ids] of byProject) {
      report.evictedBytes += await visits.evictRecordings(db, projectId, ids, now)
      report.evictedVisits += ids.length
    }
    report.purged += await purgeTrash(db, stores)
  }
  return report
}

/** One round of upkeep: budgets, the disk floor, then the trash. */
export async function upkeep(db: Kysely<Database>, stores: RecordingStores, now: number): Promise<UpkeepReport> {
  const report: UpkeepReport = { purged: 0, evictedVisits: 0, evictedBytes: 0 }
  const add = (r: UpkeepReport) => {
    report.purged += r.purged
    report.evictedVisits += r.evictedVisits
    report.evictedBytes += r.evictedBytes
  }
  for (const p of await listProjects(db)) {
    if (p.recording_budget !== null) add(await enforceBudget(db, p.id, p.recording_budget, now))
  }
  add(await enforceFloor(db, stores, now))
  report.purged += await purgeTrash(db, stores)
  return report
}

/** Runs the upkeep every RECORDING_UPKEEP_SECONDS in the service; off with the retention sweeper (RETENTION_SWEEP_SECONDS=0). */
export function startRecordingUpkeep(app: FastifyInstance): () => Promise<void> {
  if (app.config.retentionSweepSeconds <= 0) return () => Promise.resolve()
  const periodic = startPeriodic(RECORDING_UPKEEP_SECONDS * 1000, async () => {
    const report = await upkeep(app.db, app.recordings.stores, Date.now())
    if (report.evictedVisits > 0) app.log.info(report, 'recording budgets and the disk floor evicted recordings')
  }, (error) => {
    if (app.databaseStatus.failed(error) === null) app.log.warn({ err: error }, 'recording upkeep failed; it runs again shortly')
  })
  app.addHook('onReady', () => { periodic.tick() })
  return periodic.stop
}
