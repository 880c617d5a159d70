import fs from 'node:fs'
import path from 'node:path'
import SQLite from 'better-sqlite3'
import { SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely'
import { andBits, andNot, collectBits, countAnd, or } from './bits.ts'
import { sqliteChanges, type ExternalChanges } from './changes.ts'

/** Prepared statements kept per connection; more distinct statements than this is a bug, not a workload. */
const STATEMENT_CACHE_SIZE = 500

/**
 * Opens the embedded database. WAL lets readers run beside the writer; synchronous=FULL
 * makes every commit durable before it returns, which is what a 2xx from ingest promises.
 */
export function sqliteDialect(file: string): SqliteDialect {
  return openSqlite(file).dialect
}

/** The dialect, and the signal of other connections' commits on the same connection (changes.ts). */
export function openSqlite(file: string): { dialect: SqliteDialect; changes: ExternalChanges } {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true })
  const database = new SQLite(file)
  database.pragma('journal_mode = WAL')
  database.pragma('synchronous = FULL')
  // The CLI and the service may open the same file; wait for the other writer instead of failing.
  database.pragma('busy_timeout = 5000')
  registerBits(database)
  const dataVersion = database.prepare('PRAGMA data_version').pluck()
  return {
    dialect: new SqliteDialect({ database: withStatementCache(database) }),
    changes: sqliteChanges(() => dataVersion.get() as number),
  }
}

/**
 * The term bitmaps' operations (bits.ts), which PostgreSQL has built in: every connection that may write or count
 * term_bits has them, the service's, the CLI's and the migrations'.
 */
function registerBits(database: SQLite.Database): void {
  database.function('sw_bits_or', { deterministic: true }, or)
  database.function('sw_bits_and_not', { deterministic: true }, andNot)
  database.function('sw_bits_count', { deterministic: true, varargs: true }, countAnd)
  database.aggregate('sw_bits_agg', { ...collectBits, result: (chunk: Buffer) => chunk })
  database.aggregate('sw_bits_and_agg', { ...andBits, result: (chunk: Buffer | null) => chunk })
}

/*
 * SQLite rolls a transaction back by itself on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM).
 * Kysely then still issues ROLLBACK, which fails with "cannot rollback - no transaction is active"
 * and replaces the error that explains what happened (a full disk) with one that explains nothing.
 * With no transaction open, ROLLBACK has nothing left to do: it succeeds as a no-op.
 */
const ALREADY_ROLLED_BACK: SqliteStatement = {
  reader: false,
  all: () => [],
  run: () => ({ changes: 0, lastInsertRowid: 0 }),
  iterate: () => [][Symbol.iterator](),
}

/**
 * Kysely prepares every statement anew; preparing a 20-row insert costs ~100 µs, more than
 * running it. Reusing prepared statements by SQL text is safe: better-sqlite3 is synchronous,
 * so one statement never runs twice at once.
 */
function withStatementCache(database: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>()
  return {
    close: () => { database.close() },
    prepare: (sql: string) => {
      if (sql === 'rollback' && !database.inTransaction) return ALREADY_ROLLED_BACK
      let statement = cache.get(sql)
      if (statement) {
        // Map order is insertion order: re-inserting marks it most recently used.
        cache.delete(sql)
      } else {
        statement = database.prepare(sql)
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value ?? '')
      }
      cache.set(sql, statement)
      return statement
    },
  }
}
