import fs from 'node:fs'
import path from 'node:path'
import SQLite from 'better-sqlite3'
import { sql, SqliteAdapter, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely'
import { andBits, andNot, collectBits, countAnd, or } from '../bits.ts'
import type { ExternalChanges } from '../changes.ts'
import type { SqlDialect, SqlDialectAdapter, TextColumn } from '../dialect.ts'

/** `needle` as an FTS5 query: a quoted string, which the trigram tokenizer matches as a substring. */
const ftsPhrase = (column: TextColumn, needle: string): string => `${column === 'page' ? 'page : ' : ''}"${needle.replace(/"/g, '""')}"`

const contains = (column: string, needle: string) => sql<boolean>`instr(lower(${sql.raw(column)}), lower(${needle})) > 0`

/**
 * SQLite's SQL: full-text search through FTS5's trigram index `session_fts`; term bitmaps as blobs, operated on by
 * functions of this file (registerBits); one writer at a time, in-process, so round trips and row locks cost nothing.
 */
export const sqliteSql: SqlDialect = {
  // The index leads the join to the text rows; a quoted string matches from the index alone.
  textMatchRows: (projectId, column, needle, rows) => sql`select x.session_id from session_fts f cross join session_texts x on x.rowid = f.rowid
      where session_fts match ${ftsPhrase(column, needle)} and x.project_id = ${projectId} limit ${rows}`,
  textContains: (column, needle, alias) => (column === 'page'
    ? contains(`${alias}page`, needle)
    : sql<boolean>`(${contains(`${alias}page`, needle)} or ${contains(`${alias}body`, needle)})`),
  jsonArrayOf: (column) => sql<string>`json_group_array(${sql.raw(column)})`,
  idRows: (ids) => sql`select value as session_id from json_each(${JSON.stringify(ids)})`,
  // SQLite indexes json_each's values once when the statement runs.
  inIds: (column, ids) => sql<boolean>`${sql.ref(column)} in (select value from json_each(${JSON.stringify(ids)}))`,
  asKey: (value) => sql<string>`cast(${value} as text)`,
  chunkParam: (chunk) => chunk,
  asBits: (value) => sql`${value}`,
  bitsType: 'blob',
  bitsOr: (a, b) => sql`sw_bits_or(${a}, ${b})`,
  bitsAndNot: (a, b) => sql`sw_bits_and_not(${a}, ${b})`,
  bitsAndAll: (chunks) => sql`sw_bits_and_agg(${chunks})`,
  bitsCount: (chunks) => sql`sw_bits_count(${sql.join(chunks)})`,
  // One past the largest (its unique index's last entry): only the one writer reads it. A deleted visit's number may
  // come again; its deletion cleared its bits.
  nextSessionNum: sql<number>`(select coalesce(max(num), 0) + 1 from sessions)`,
  locksRows: false,
  // No arrays, and nothing to save: statements are prepared once and values bound in-process.
  takesArrays: false,
  // Reading a row costs several index probes; a json_each list is no cheaper to probe than an index, so it never lists.
  planCosts: { rowRead: 10, listed: null },
}

class Adapter extends SqliteAdapter implements SqlDialectAdapter {
  readonly sqlDialect = sqliteSql
}

/** Kysely's SQLite dialect, its adapter carrying sqliteSql. */
class Dialect extends SqliteDialect {
  override createAdapter(): Adapter {
    return new Adapter()
  }
}

/** Prepared statements kept per connection; more distinct statements than this is a bug, not a workload. */
const STATEMENT_CACHE_SIZE = 500

/**
 * Opens the embedded database. WAL lets readers run beside the writer; synchronous=FULL
 * makes every commit durable before it returns, which is what a 2xx from ingest promises.
 */
export function sqliteDialect(file: string): SqliteDialect {
  return openSqlite(file).dialect
}

/** The dialect, and the signal of other connections' commits (changes.ts). */
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
    dialect: new Dialect({ database: withStatementCache(database) }),
    // `data_version` changes exactly when another connection committed since this one last asked, never for its own
    // commits; it reads the WAL index in shared memory, no I/O.
    changes: { version: () => dataVersion.get() as number, close: () => Promise.resolve() },
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
 * A statement whose rows better-sqlite3 reads as arrays and this builds into objects: better-sqlite3 sets each column
 * of each row on a new object through V8's slow path, which cost half the time of reading a visit's 200 events. The
 * builder is an object literal compiled once a statement, so every row of it has one shape from the start.
 */
function withArrayRows(statement: SQLite.Statement): SqliteStatement {
  if (!statement.reader) return statement
  // Column names come from the statement's own SQL; JSON.stringify quotes each as a property name.
  const fields = statement.columns().map((c, i) => `${JSON.stringify(c.name)}: values[${String(i)}]`)
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiled from column names, as fast-json-stringify compiles schemas
  const toObject = new Function('values', `return { ${fields.join(', ')} }`) as (values: unknown[]) => Record<string, unknown>
  statement.raw(true)
  return {
    reader: true,
    all: (parameters) => (statement.all(parameters) as unknown[][]).map(toObject),
    run: (parameters) => statement.run(parameters),
    iterate: function* iterate(parameters) {
      for (const values of statement.iterate(parameters) as IterableIterator<unknown[]>) yield toObject(values)
    },
  }
}

/**
 * Kysely prepares every statement anew, which for a small statement costs more than running it. Reusing prepared
 * statements by SQL text is safe: better-sqlite3 is synchronous, so one statement never runs twice at once.
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
        statement = withArrayRows(database.prepare(sql))
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value ?? '')
      }
      cache.set(sql, statement)
      return statement
    },
  }
}
