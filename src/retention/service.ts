import type { Kysely } from 'kysely'
import type { Database } from '../db/database.ts'
import { listProjects } from '../projects/store.ts'
import { DayDeltas } from '../sessions/days.ts'
import { DAY_MS } from '../shared/time.ts'
import { deleteSessions, findExpired } from './store.ts'

/** Sessions deleted per transaction: short transactions keep ingest and reads flowing during a sweep. */
export const SWEEP_BATCH = 500

export interface SweepReport {
  projects: number
  deleted: number
}

/**
 * Deletes every session past its project's retention, with its events, in bounded batches.
 * Readers already ignore expired sessions, so the sweep only reclaims space.
 */
export async function sweep(
  db: Kysely<Database>, now: number, onProgress?: (projectId: string, deleted: number) => void,
): Promise<SweepReport> {
  const projects = await listProjects(db)
  let deleted = 0
  for (const project of projects) {
    const cutoff = now - project.retention_days * DAY_MS
    let inProject = 0
    for (;;) {
      const refs = await findExpired(db, project.id, cutoff, SWEEP_BATCH)
      if (refs.length === 0) break
      inProject += await db.transaction().execute(async (trx) => {
        const days = new DayDeltas()
        const deleted = await deleteSessions(trx, project.id, refs, days)
        await days.apply(trx)
        return deleted
      })
      onProgress?.(project.id, inProject)
      // Let queued requests run between batches.
      await new Promise((resolve) => setImmediate(resolve))
    }
    deleted += inProject
  }
  return { projects: projects.length, deleted }
}
