import type { Kysely, Transaction } from 'kysely'

/**
 * Whether another process may have written the database: a number that changes whenever it may have, or null
 * while that cannot be known. A cache of rows checks it before each use and starts afresh when it moved; null
 * means "do not cache". Writes of this process are the cache owner's to announce (it knows which it makes).
 */
export interface ExternalChanges {
  version(): number | null
  close(): Promise<void>
}

const registered = new WeakMap<object, ExternalChanges>()

/** Makes `changes` the signal of `db` (done once, where the database is opened). */
export function registerChanges<DB>(db: Kysely<DB> | Transaction<DB>, changes: ExternalChanges): void {
  registered.set(db, changes)
}

/**
 * The signal's current version for `db`, or null: for a transaction (a read there must see its own snapshot), for
 * a database opened without a signal, and while the signal is down.
 */
export function externalVersion<DB>(db: Kysely<DB> | Transaction<DB>): number | null {
  return db.isTransaction ? null : registered.get(db)?.version() ?? null
}

/** The channel the projects table's trigger notifies on every statement that changes it (migration 0012). */
export const PROJECTS_CHANNEL = 'sessionwatch_projects'
