import { PostgresAdapter, PostgresDialect, sql, type RawBuilder } from 'kysely'
import type pg from 'pg'
import { BITS_PER_CHUNK } from '../bits.ts'
import type { SqlDialect, SqlDialectAdapter, TextColumn } from '../dialect.ts'

/** `needle` as an ILIKE pattern for "contains", its own `%`, `_` and `\\` escaped. */
const containsPattern = (needle: string): string => `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** Whether the session_texts row `alias` contains `needle` in `column`: an ILIKE, served by a pg_trgm index. */
const ilike = (column: TextColumn, needle: string, alias = ''): RawBuilder<boolean> => (column === 'page'
  ? sql<boolean>`${sql.raw(`${alias}page`)} ilike ${containsPattern(needle)}`
  : sql<boolean>`(${sql.raw(`${alias}page`)} ilike ${containsPattern(needle)} or ${sql.raw(`${alias}body`)} ilike ${containsPattern(needle)})`)

const idRows = (ids: readonly string[]): RawBuilder<{ session_id: string }> =>
  sql`select unnest(cast(${ids} as text[])) collate "C" as session_id`

const bitString = sql.raw(`bit(${BITS_PER_CHUNK})`)

/**
 * Visits a walk lists at most: hashing a list grows faster than its length, the hash must fit in work_mem, and the
 * list goes through the service twice.
 */
const LISTED_VISITS_MAX = 10_000

/**
 * PostgreSQL's SQL: full-text search through pg_trgm's GIN indexes; term bitmaps as bit(BITS_PER_CHUNK) with the
 * operations built in; ids and keys `text collate "C"`. Every statement is a round trip, and writers lock rows.
 */
export const postgresSql: SqlDialect = {
  textMatchRows: (projectId, column, needle, rows) =>
    sql`select session_id from session_texts where project_id = ${projectId} and ${ilike(column, needle)} limit ${rows}`,
  textContains: (column, needle, alias) => ilike(column, needle, alias),
  jsonArrayOf: (column) => sql<string>`coalesce(json_agg(${sql.raw(column)}), '[]')::text`,
  idRows,
  // A hashed subplan: hashed once per statement, probed per row, if it fits in work_mem × hash_mem_multiplier (else
  // the list is scanned for every row). `is true` keeps it a filter: a bare `in` may become a join that reads every
  // listed row and sorts them.
  inIds: (column, ids) => sql<boolean>`(${sql.ref(column)} in (${idRows(ids)})) is true`,
  asKey: (value) => sql<string>`cast(${value} as text) collate "C"`,
  chunkParam: (chunk) => `x${chunk.toString('hex')}`,
  asBits: (value) => sql`cast(${value} as ${bitString})`,
  bitsType: `bit(${BITS_PER_CHUNK})`,
  bitsOr: (a, b) => sql`(${a} | ${b})`,
  bitsAndNot: (a, b) => sql`(${a} & ~${b})`,
  bitsAndAll: (chunks) => sql`bit_and(${chunks})`,
  bitsCount: (chunks) => sql`bit_count(${sql.join(chunks, sql` & `)})`,
  nextSessionNum: sql<number>`nextval('session_nums')`,
  locksRows: true,
  // One statement of a parameter a column, whatever the row count: rows of VALUES cost the parser and binder per row.
  takesArrays: true,
  // A row read costs a few probes; listing a filter's visits pays where a walk would probe its index often.
  planCosts: { rowRead: 5, listed: { perVisit: 0.33, perEntry: 0.08, mostVisits: LISTED_VISITS_MAX } },
}

class Adapter extends PostgresAdapter implements SqlDialectAdapter {
  readonly sqlDialect = postgresSql
}

/** Kysely's PostgreSQL dialect, its adapter carrying postgresSql. */
class Dialect extends PostgresDialect {
  override createAdapter(): Adapter {
    return new Adapter()
  }
}

/** The pg driver's module, as `loadPg` gives it. */
export type PgDriver = typeof pg

/** Imports the pg driver only when PostgreSQL is the engine: a service on SQLite (the default) never loads it. */
export const loadPg = async (): Promise<PgDriver> => (await import('pg')).default

export interface PostgresOptions {
  url: string
  poolSize: number
  statementTimeoutMs: number
  /** max_parallel_workers_per_gather for each connection (DATABASE_PARALLEL_WORKERS). */
  parallelWorkers: number
  /** A pooled connection failed outside any query: the server restarted, crashed or ended it. */
  onConnectionError?: (error: Error) => void
}

/**
 * The pool's connection string and startup options (`-c name=value …`): the service's after those the URL's own
 * `options` parameter carries. pg lets a URL's `options` replace the pool's whole, which would drop the service's, and
 * reads PGOPTIONS only when neither sets any. A setting named in both takes the service's value (PostgreSQL applies
 * the last).
 */
export function withStartupOptions(url: string, service: string): { connectionString: string; options: string } {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    // Not a URL the service can read: pg then says what is wrong with it.
    return { connectionString: url, options: service }
  }
  const own = parsed.searchParams.get('options')
  if (own === null) return { connectionString: url, options: service }
  parsed.searchParams.delete('options')
  return { connectionString: parsed.toString(), options: `${own} ${service}` }
}

export function postgresDialect(pg: PgDriver, options: PostgresOptions): PostgresDialect {
  /*
   * int8 (bigint: epoch-ms timestamps, count(*), sum()) arrives from pg as a string by default.
   * Every such value here is far below 2^53, so reading them as numbers is exact — and it makes
   * the two engines return the same JavaScript values.
   */
  const types = new pg.TypeOverrides()
  types.setTypeParser(pg.types.builtins.INT8, Number)
  types.setTypeParser(pg.types.builtins.NUMERIC, Number)
  const pool = new pg.Pool({
    // DATABASE_PARALLEL_WORKERS (why none by default: DEFAULT_PARALLEL_WORKERS), sent as a startup option, as
    // statement_timeout is: no round trip of its own.
    ...withStartupOptions(options.url, `-c max_parallel_workers_per_gather=${String(options.parallelWorkers)}`),
    max: options.poolSize,
    // A stuck query fails instead of holding a pooled connection forever.
    statement_timeout: options.statementTimeoutMs,
    idle_in_transaction_session_timeout: Math.max(options.statementTimeoutMs, 60_000),
    types,
    application_name: 'sessionwatch',
    // An unreachable server fails requests (and /healthz) quickly instead of hanging them.
    connectionTimeoutMillis: 5000,
  })
  /*
   * A connection the server ends (restart, crash, failover, pg_terminate_backend) emits 'error' on
   * its client, and an 'error' event with no listener ends the process. The pool listens only while
   * a client is idle; Kysely holds a client through a whole transaction, so every client gets a
   * listener of its own for its whole life. The query that was running fails on its own (and answers
   * 503); pg discards the broken client on release, and the next query opens a new connection.
   */
  pool.on('connect', (client) => {
    client.on('error', (error) => { options.onConnectionError?.(error) })
  })
  // The pool re-emits an idle client's error, already reported by the client's own listener above.
  pool.on('error', () => undefined)
  return new Dialect({ pool })
}
