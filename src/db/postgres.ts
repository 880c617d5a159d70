import { PostgresDialect } from 'kysely'
import pg from 'pg'

export interface PostgresOptions {
  url: string
  poolSize: number
  statementTimeoutMs: number
  onIdleError?: (error: Error) => void
}

/*
 * int8 (bigint: epoch-ms timestamps, count(*), sum()) arrives from pg as a string by default.
 * Every such value here is far below 2^53, so reading them as numbers is exact — and it makes
 * the two engines return the same JavaScript values.
 */
const types = new pg.TypeOverrides()
types.setTypeParser(pg.types.builtins.INT8, Number)
types.setTypeParser(pg.types.builtins.NUMERIC, Number)

export function postgresDialect(options: PostgresOptions): PostgresDialect {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    // A stuck query fails instead of holding a pooled connection forever.
    statement_timeout: options.statementTimeoutMs,
    idle_in_transaction_session_timeout: Math.max(options.statementTimeoutMs, 60_000),
    types,
    application_name: 'sessionwatch',
    // An unreachable server fails requests (and /healthz) quickly instead of hanging them.
    connectionTimeoutMillis: 5000,
  })
  // An idle connection the server closes (restart, failover) emits 'error' on the pool; without a
  // listener that would crash the process. pg drops the client, and the next query reconnects.
  pool.on('error', (error) => { options.onIdleError?.(error) })
  return new PostgresDialect({ pool })
}
