import type { Kysely } from 'kysely'
import { SWEEP_BATCH } from '../visits/limits.ts'
import { deleteDeliveriesBefore } from '../alerts/store.ts'
import type { Database } from '../database.ts'
import { listProjects, retentionCutoff } from '../projects/service.ts'
import { deleteExpired } from '../visits/index.ts'
import { expireUnits } from '../releases/index.ts'
import { expirePageDays } from '../pages/index.ts'


export interface SweepReport {
  projects: number
  deleted: number
}

/**
 * Deletes every session past its project's retention, with its events, in bounded batches, and the project's
 * webhook deliveries queued before it. Readers already ignore expired sessions, so the sweep only reclaims space.
 */
export async function sweep(
  db: Kysely<Database>, now: number, onProgress?: (projectId: string, deleted: number) => void,
): Promise<SweepReport> {
  const projects = await listProjects(db)
  let deleted = 0
  for (const project of projects) {
    const cutoff = retentionCutoff(project, now)
    let inProject = 0
    for (;;) {
      const batch = await deleteExpired(db, project.id, cutoff, SWEEP_BATCH)
      if (batch === 0) break
      inProject += batch
      onProgress?.(project.id, inProject)
      // Let queued requests run between batches.
      await new Promise((resolve) => setImmediate(resolve))
    }
    deleted += inProject
    // Sentry sessions and aggregates count in release health no longer than the visits do (ours go with their visits).
    while (await expireUnits(db, project.id, cutoff, SWEEP_BATCH) > 0) await new Promise((resolve) => setImmediate(resolve))
    // Page counters go a whole UTC day at a time, once all of it is past retention.
    while (await expirePageDays(db, project.id, cutoff) > 0) await new Promise((resolve) => setImmediate(resolve))
    // Webhook deliveries carry issue titles, visitor text: they live no longer than the sessions they came from.
    await deleteDeliveriesBefore(db, project.id, cutoff)
  }
  return { projects: projects.length, deleted }
}
