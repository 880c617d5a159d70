import { PostgresDialect } from 'kysely'
import type pg from 'pg'

/** The pg driver's module, as `loadPg` gives it. */
export type PgDriver = typeof pg

/**
 * Imports the pg driver when PostgreSQL is the engine, so a service on SQLite (the default) never loads it: about
 * 1.7 MB of heap for nothing.
 */
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
  return new PostgresDialect({ pool })
}
