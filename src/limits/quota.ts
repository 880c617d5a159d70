import type { Db } from '../database.ts'
import { deleteProjectRows } from '../db/rows.ts'
import { DAY_MS, dayOf } from '../util/time.ts'

/**
 * Counts `events` against the project's quota for the UTC day of `now` and says whether the request may go on: it
 * may while the day's count, before it, is below `quota`, so the request that crosses the quota is taken whole and
 * every later one is refused. One statement, a conditional increment of the day's row, so concurrent requests in
 * any number of processes each see the counts of the ones before them: none gets in once the quota is spent.
 */
export async function takeQuota(db: Db, projectId: string, quota: number, events: number, now: number): Promise<boolean> {
  const day = dayOf(now)
  if (events === 0) return (await usedOn(db, projectId, day)) < quota
  const row = await db.insertInto('quota_days').values({ project_id: projectId, day, events })
    .onConflict((oc) => oc.columns(['project_id', 'day'])
      .doUpdateSet((eb) => ({ events: eb('quota_days.events', '+', eb.ref('excluded.events')) }))
      .where('quota_days.events', '<', quota))
    .returning('events').executeTakeFirst()
  return row !== undefined
}

/** Gives back events taken by takeQuota for a request that then stored nothing (refused, or failed). */
export async function giveBackQuota(db: Db, projectId: string, events: number, takenAt: number): Promise<void> {
  if (events === 0) return
  await db.updateTable('quota_days').set((eb) => ({ events: eb('events', '-', events) }))
    .where('project_id', '=', projectId).where('day', '=', dayOf(takenAt)).execute()
}

/** Events the project's quota counted on the UTC day of `now`. */
export const quotaUsage = (db: Db, projectId: string, now: number): Promise<number> => usedOn(db, projectId, dayOf(now))

async function usedOn(db: Db, projectId: string, day: number): Promise<number> {
  const row = await db.selectFrom('quota_days').select('events').where('project_id', '=', projectId).where('day', '=', day).executeTakeFirst()
  return row?.events ?? 0
}

/** Seconds from `now` to the next UTC midnight, when a spent quota is whole again: at least 1. */
export const secondsToNextDay = (now: number): number => Math.max(1, Math.ceil(((dayOf(now) + 1) * DAY_MS - now) / 1000))

/** Deletes a project's quota counts when the project is deleted. */
export const forgetProject = (trx: Db, projectId: string): Promise<void> => deleteProjectRows(trx, ['quota_days'], projectId)
