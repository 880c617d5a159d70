import type { Kysely, Transaction } from 'kysely'

/**
 * Runs `work` in the transaction `db` already is, or in a new one: a change made inside a caller's transaction
 * commits with what the caller writes beside it (an audit line, say), and alone it is still atomic.
 */
export function inTransaction<DB, T>(db: Kysely<DB> | Transaction<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<DB>) : db.transaction().execute(work)
}
