/*
 * The operations that take page counters away: retention, a day at a time, and a deleted project. Erasing a visitor
 * leaves them: they count pages, never who viewed them.
 */
import type { Kysely } from 'kysely'
import type { Database, Db } from '../database.ts'
import { retrying } from '../db/errors.ts'
import { deleteProjectRows } from '../db/rows.ts'
import { dayOf } from '../util/time.ts'
import { COUNTERS } from './count.ts'

/**
 * Deletes the oldest stored day of a project's page counters when all of it is past retention (before `cutoff`'s
 * UTC day), taking its counts out of the totals in the same transaction, and deletes totals left at zero. Returns
 * how many days it deleted: 0 when none is left to delete.
 */
export async function expirePageDays(db: Kysely<Database>, projectId: string, cutoff: number): Promise<number> {
  const oldest = await db.selectFrom('page_days').select((eb) => eb.fn.min('day').as('day')).where('project_id', '=', projectId).executeTakeFirst()
  const day = oldest?.day ?? null
  if (day === null || day >= dayOf(cutoff)) return 0
  await retrying(() => db.transaction().execute(async (trx) => {
    await trx.updateTable('page_totals').from('page_days as d')
      .set((eb) => Object.fromEntries(COUNTERS.map((c) => [c, eb(`page_totals.${c}`, '-', eb.ref(`d.${c}`))])))
      .where('page_totals.project_id', '=', projectId).where('d.project_id', '=', projectId).where('d.day', '=', day)
      .whereRef('d.page', '=', 'page_totals.page').execute()
    await trx.updateTable('page_vital_totals').from('page_vitals as v')
      .set((eb) => ({ count: eb('page_vital_totals.count', '-', eb.ref('v.count')) }))
      .where('page_vital_totals.project_id', '=', projectId).where('v.project_id', '=', projectId).where('v.day', '=', day)
      .whereRef('v.metric', '=', 'page_vital_totals.metric').whereRef('v.page', '=', 'page_vital_totals.page')
      .whereRef('v.bucket', '=', 'page_vital_totals.bucket').execute()
    await trx.deleteFrom('page_totals').where('project_id', '=', projectId)
      .where((eb) => eb.and(COUNTERS.map((c) => eb(c, '<=', 0)))).execute()
    await trx.deleteFrom('page_vital_totals').where('project_id', '=', projectId).where('count', '<=', 0).execute()
    await trx.deleteFrom('page_days').where('project_id', '=', projectId).where('day', '=', day).execute()
    await trx.deleteFrom('page_vitals').where('project_id', '=', projectId).where('day', '=', day).execute()
  }))
  return 1
}

/** Deletes every page counter of a project being deleted (src/projects/delete.ts). */
export const forgetProject = (trx: Db, projectId: string): Promise<void> =>
  deleteProjectRows(trx, ['page_vitals', 'page_vital_totals', 'page_days', 'page_totals'], projectId)
