import type { DialectAdapter, QueryExecutorProvider, RawBuilder } from 'kysely'

/** A column of session_texts: `page` (the pages, `url=`) or `body` (all the text, pages included, `q=`). */
export type TextColumn = 'page' | 'body'

/**
 * What a search's plan weighs its ways with (src/search/plan.ts), in probes of an index by id. `rowRead`: reading a
 * session's row by its id. `listed`: listing a filter's visits once, per visit, and probing a walked entry in that
 * list (inIds), per entry, for at most `mostVisits`; null where listing cannot pay. Tuned on the benchmark, not derived.
 */
export interface PlanCosts {
  rowRead: number
  listed: { perVisit: number; perEntry: number; mostVisits: number } | null
}

/**
 * Everything the SQL of the two engines differs in, written once per engine (src/db/sqlite/dialect.ts,
 * src/db/postgres/dialect.ts). The rest of the service asks `dialectOf(db)`, never which engine it runs on.
 */
export interface SqlDialect {
  /** The rows of text (a visit's `session_id` per row that matches) whose `column` contains `needle`, at most `rows`. */
  textMatchRows(projectId: string, column: TextColumn, needle: string, rows: number): RawBuilder<{ session_id: string }>
  /** Whether the session_texts row `alias` (`x.`, say) contains `needle` in `column`, case-insensitively. */
  textContains(column: TextColumn, needle: string, alias: string): RawBuilder<boolean>
  /** An aggregate of `column` over a query's rows as a JSON array's text. */
  jsonArrayOf(column: string): RawBuilder<string>
  /** `ids` as a query of one column, `session_id`, in the stored keys' collation: one parameter whatever their number. */
  idRows(ids: readonly string[]): RawBuilder<{ session_id: string }>
  /** Whether `column` is one of `ids`, probed per row. */
  inIds(column: string, ids: readonly string[]): RawBuilder<boolean>
  /** A parameter as an id or key of a stored row, so a join on it can use the row's indexes. */
  asKey(value: unknown): RawBuilder<string>

  /** A term bitmap's chunk (src/db/bits.ts) as the parameter the engine takes, made a stored chunk by `asBits`. */
  chunkParam(chunk: Buffer): unknown
  asBits(value: unknown): RawBuilder<unknown>
  /** The SQL type of a stored chunk, for a parameter of an array of them (takesArrays). */
  bitsType: string
  /** `a` with `b`'s bits set too. */
  bitsOr(a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<unknown>
  /** `a` with `b`'s bits cleared. */
  bitsAndNot(a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<unknown>
  /** The AND of a group's chunks (an aggregate). */
  bitsAndAll(chunks: RawBuilder<unknown>): RawBuilder<unknown>
  /** How many bits are set in every one of the chunks. */
  bitsCount(chunks: readonly RawBuilder<unknown>[]): RawBuilder<number | string>

  /** A new visit's number (`sessions.num`, its bit in the term bitmaps), never one a stored visit has. */
  readonly nextSessionNum: RawBuilder<number>

  /** Whether concurrent writers lock rows, and so must take them in one order. */
  readonly locksRows: boolean
  /** Whether many rows are inserted as one array per column (`rowsOfArrays`) rather than rows of VALUES. */
  readonly takesArrays: boolean
  readonly planCosts: PlanCosts
}

/** A Kysely adapter of this service's engines (DialectAdapter: what Kysely itself asks of an engine), carrying its SQL. */
export interface SqlDialectAdapter extends DialectAdapter {
  readonly sqlDialect: SqlDialect
}

/**
 * The SQL dialect of the engine `db` (a database or a transaction) runs on. It travels with Kysely's adapter, which
 * an engine's Kysely dialect makes once when the database is opened and every transaction shares.
 */
export function dialectOf(db: QueryExecutorProvider): SqlDialect {
  const adapter: Partial<SqlDialectAdapter> = db.getExecutor().adapter
  if (!adapter.sqlDialect) throw new Error('This database was not opened through src/db/ (sqliteDialect or postgresDialect)')
  return adapter.sqlDialect
}
