import fs from 'node:fs'
import path from 'node:path'
import SQLite from 'better-sqlite3'
import { SqliteDialect } from 'kysely'

/**
 * Opens the embedded database. WAL lets readers run beside the writer; synchronous=FULL
 * makes every commit durable before it returns, which is what a 2xx from ingest promises.
 */
export function sqliteDialect(file: string): SqliteDialect {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true })
  const database = new SQLite(file)
  database.pragma('journal_mode = WAL')
  database.pragma('synchronous = FULL')
  // The CLI and the service may open the same file; wait for the other writer instead of failing.
  database.pragma('busy_timeout = 5000')
  return new SqliteDialect({ database })
}
