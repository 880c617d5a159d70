import type pg from 'pg'
import type { PgDriver } from './postgres.ts'
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

/**
 * SQLite: `PRAGMA data_version` changes exactly when another connection (the CLI's, say) committed since this
 * connection last asked, and never for this connection's own commits. It reads the WAL index in shared memory:
 * about a microsecond, no I/O.
 */
export function sqliteChanges(read: () => number): ExternalChanges {
  return { version: read, close: () => Promise.resolve() }
}

/** The channel the projects table's trigger notifies on every statement that changes it (migration 0012). */
export const PROJECTS_CHANNEL = 'sessionwatch_projects'

const RETRY_MS = { first: 100, max: 5000 }

/**
 * PostgreSQL: one connection of its own LISTENs to the channel; each notification moves the version. The
 * server delivers a notification to listeners when the writing transaction commits, in well under a millisecond
 * on one host. While that connection is down (a restart, a dropped connection) the version is null and callers
 * read the database; it reconnects by itself, and a reconnect moves the version too, since notifications sent
 * meanwhile are lost.
 */
export function postgresChanges(driver: PgDriver, url: string, channel: string): ExternalChanges {
  let version = 0
  // The connection being opened or listening; any other is an old one whose late events mean nothing.
  let current: pg.Client | null = null
  let listening = false
  let closed = false
  let retry: NodeJS.Timeout | null = null
  let delay = RETRY_MS.first

  const lost = (client: pg.Client): void => {
    client.end().catch(() => undefined)
    if (client !== current) return
    current = null
    listening = false
    if (closed) return
    retry = setTimeout(() => { retry = null; void connect() }, delay)
    retry.unref()
    delay = Math.min(delay * 2, RETRY_MS.max)
  }

  const connect = async (): Promise<void> => {
    const client = new driver.Client({ connectionString: url, application_name: 'sessionwatch-listen', connectionTimeoutMillis: 5000 })
    current = client
    // An error on this connection (the server restarting, say) must not end the process: an 'error' event with no
    // listener would. The connection is given up and opened again.
    client.on('error', () => { lost(client) })
    client.on('end', () => { lost(client) })
    client.on('notification', () => { version++ })
    try {
      await client.connect()
      await client.query(`LISTEN ${channel}`)
    } catch {
      lost(client)
      return
    }
    if (client !== current) return
    version++
    listening = true
    delay = RETRY_MS.first
  }

  void connect()
  return {
    version: () => (listening ? version : null),
    close: async () => {
      closed = true
      if (retry) clearTimeout(retry)
      const client = current
      current = null
      listening = false
      await client?.end().catch(() => undefined)
    },
  }
}
