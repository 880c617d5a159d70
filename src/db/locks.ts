import { sql, type Transaction } from 'kysely'
import { dialectOf } from './dialect.ts'

/**
 * Makes the open transaction `trx` the only one writing `table` until it ends, so that what it reads of the table
 * then stays true until it commits: PostgreSQL's SHARE lock waits for the writers in flight and holds new ones back
 * (readers go on). SQLite writes one transaction at a time already, from the transaction's first write: call this
 * after one.
 */
export async function holdWriters<DB>(trx: Transaction<DB>, table: string): Promise<void> {
  if (dialectOf(trx).locksRows) await sql`lock table ${sql.table(table)} in share mode`.execute(trx)
}
