/*
 * The operations that take page counters away: retention, a day at a time, and a deleted project. Erasing a visitor
 * leaves them: they count pages, never who viewed them.
 */
import { sql, type Kysely } from 'kysely'
import type { Database, Db } from '../database.ts'
import { retrying } from '../db/errors.ts'
import { deleteProjectRows } from '../db/rows.ts'
import { dayOf } from '../util/time.ts'
import { addRows, type Value } from '../db/counters.ts'
import { PAGE_COUNTERS, totalUpsert, VITAL_COUNTERS } from './count.ts'

/**
 * Deletes the oldest stored day of a project's page counters when all of it is past retention (before `cutoff`'s
 * UTC day), and takes its counts from the totals in the same transaction; totals left at zero go. Returns how many
 * days it deleted: 0 when none is left to delete.
 */
export async function expirePageDays(db: Kysely<Database>, projectId: string, cutoff: number): Promise<number> {
  const oldest = await db.selectFrom('page_days').select((eb) => eb.fn.min('day').as('day')).where('project_id', '=', projectId).executeTakeFirst()
  const day = oldest?.day ?? null
  if (day === null || day >= dayOf(cutoff)) return 0
  await retrying(() => db.transaction().execute(async (trx) => {
    const taken = []
    for (const c of [PAGE_COUNTERS, VITAL_COUNTERS]) {
      const { rows } = await sql<Record<string, Value>>`delete from ${sql.table(c.days)} where project_id = ${projectId} and day = ${day} returning *`.execute(trx)
      const keys = c.keys.slice(1).map(([name]) => name)
      taken.push(totalUpsert(c, rows.map((r) => [projectId, day, ...keys.map((k) => r[k] ?? ''), ...c.counters.map(([n]) => -Number(r[n]))])))
    }
    await addRows(trx, taken)
    for (const c of [PAGE_COUNTERS, VITAL_COUNTERS]) {
      const spent = sql.join(c.counters.map(([n]) => sql`${sql.ref(n)} <= 0`), sql` and `)
      await sql`delete from ${sql.table(c.totals)} where project_id = ${projectId} and ${spent}`.execute(trx)
    }
  }))
  return 1
}

/** Deletes every page counter of a project being deleted (src/projects/delete.ts). */
export const forgetProject = (trx: Db, projectId: string): Promise<void> =>
  deleteProjectRows(trx, ['page_vitals', 'page_vital_totals', 'page_days', 'page_totals'], projectId)
