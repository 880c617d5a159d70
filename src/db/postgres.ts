import { PostgresDialect } from 'kysely'
import pg from 'pg'

export interface PostgresOptions {
  url: string
  poolSize: number
  statementTimeoutMs: number
}

/*
 * int8 (bigint: epoch-ms timestamps, count(*), sum()) arrives from pg as a string by default.
 * Every such value here is far below 2^53, so reading them as numbers is exact — and it makes
 * the two engines return the same JavaScript values.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

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
  return new PostgresDialect({ pool })
}
