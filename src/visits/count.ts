/**
 * Exact counts of the session list's filters that are not a plain statement of list.ts: several terms from their
 * bitmaps (term_bits), and the row count of any query.
 */
import { sql, type Expression } from 'kysely'
import type { Db } from '../db/database.ts'
import { bitsAndAll, bitsCount } from '../db/sql.ts'

/**
 * The project's visits that have every one of the terms (two or more), any age: their term_bits rows, grouped by chunk,
 * ANDed where every term has the chunk and counted (src/db/bits.ts), ~120 rows a term on 1M visits whatever the terms
 * match. Probing each visit of the rarer term in the other's index cost ~0.7 µs a visit on SQLite: 137–229 ms for
 * has-errors and one country (200,000 visits) on the benchmark's 1M. One grouped scan, not a join per term: SQLite
 * joins at most 64 tables, and `tag.` parameters are not capped.
 */
export async function countWithTerms(db: Db, projectId: string, terms: readonly string[]): Promise<number> {
  const distinct = [...new Set(terms)]
  const chunks = db.selectFrom('term_bits').select(bitsAndAll(db, sql.ref('bits')).as('bits'))
    .where('project_id', '=', projectId).where('term', 'in', distinct)
    .groupBy('chunk').having((eb) => eb.fn.countAll(), '=', distinct.length)
  const { rows } = await sql<{ n: number | string | null }>`select sum(${bitsCount(db, [sql.ref('c.bits')])}) as n from (${chunks}) as c`.execute(db)
  return Number(rows[0]?.n ?? 0)
}

/** count(*) of a query's rows (the planner does not compute the columns a count does not read). */
export async function countRows(db: Db, q: Expression<unknown>): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from (${q}) as c`.execute(db)
  return Number(rows[0]?.n ?? 0)
}
