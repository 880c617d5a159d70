import { sql, type Expression, type QueryExecutorProvider, type RawBuilder } from 'kysely'
import { dialectOf, type PlanCosts, type TextColumn } from './dialect.ts'

/** The database or an open transaction, of any schema: what a statement runs on. */
type Db = QueryExecutorProvider

/*
 * SQL whose spelling decides which index the planner takes, on both engines. The SQL snapshot and
 * query-plan tests (test/store/visits/sql.test.ts) hold every query built with these to its index.
 * What differs between the engines is their dialect's (dialect.ts); the functions below that take `db` ask it.
 */

/**
 * `column` as an expression (`+column`): the same value, but no index on the column can serve it,
 * so the planner keeps to another index. Both engines accept a unary plus on a number.
 */
export const unindexed = (column: string): RawBuilder<number> => sql<number>`+${sql.raw(column)}`

/** The same for a text column (`column || ''`): equal values stay equal, and no index on the column serves it. */
export const unindexedText = (column: string): RawBuilder<string> => sql<string>`(${sql.raw(column)} || '')`

/**
 * `(a, b) > (x, y)` (`<` for a descending order): a keyset page after a row, in the order of an index on
 * the columns. Both engines compare row values lexicographically and walk the index from the cursor; an
 * `a > x or (a = x and b > y)` spelling would not use the index on PostgreSQL.
 */
export const rowAfter = (
  columns: readonly (string | RawBuilder<unknown>)[], values: readonly unknown[], order: 'asc' | 'desc' = 'asc',
): RawBuilder<boolean> =>
  sql<boolean>`(${sql.join(columns.map((c) => (typeof c === 'string' ? sql.raw(c) : c)))}) ${sql.raw(order === 'asc' ? '>' : '<')} (${sql.join(values)})`

/**
 * A partial index's predicate, spelled as its migration spells it, with the constant inline: a
 * planner matches a query to a partial index only when it can prove the predicate, and a bound
 * parameter hides the value it would need to see.
 */
export const positive = (column: 'events_errors' | 'recording_chunks'): RawBuilder<boolean> =>
  sql<boolean>`${sql.raw(column)} > 0`

/**
 * Whether a lookup by this text can match anything. PostgreSQL text cannot hold U+0000 and fails the whole query on
 * one, so no stored id or key has one on either engine, and such a lookup is answered "no match" without asking.
 */
export const canMatch = (value: string): boolean => !value.includes('\u0000')

/**
 * The sessions whose searchable text (session_texts' `column`) contains `needle`, case-insensitively, read once from
 * the engine's trigram index: null when more than `limit` rows of text match (too broad to count at once). A needle
 * under 3 characters has no trigram: callers refuse it.
 */
export async function textMatchSessions(db: Db, projectId: string, column: TextColumn, needle: string, limit: number): Promise<string[] | null> {
  const found = await collectIds(db, dialectOf(db).textMatchRows(projectId, column, needle, limit + 1), limit)
  return found.ids === null ? null : [...new Set(found.ids)]
}

/**
 * The `session_id`s a query lists, and how many rows it listed, as one row of a JSON array the engine builds, which
 * costs less than the rows one by one. Given `most`, the ids only when the query listed at most that many rows, else
 * null: the array is then not sent and parsed for nothing.
 */
export async function collectIds(db: Db, rows: Expression<unknown>): Promise<{ rows: number; ids: string[] }>
export async function collectIds(db: Db, rows: Expression<unknown>, most: number): Promise<{ rows: number; ids: string[] | null }>
export async function collectIds(db: Db, rows: Expression<unknown>, most?: number): Promise<{ rows: number; ids: string[] | null }> {
  const all = dialectOf(db).jsonArrayOf('m.session_id')
  const ids = most === undefined ? all : sql`case when count(*) <= ${most} then ${all} end`
  const statement = sql<{ n: number | string; ids: string | null }>`select count(*) as n, ${ids} as ids from (${rows}) as m`
  const { rows: [found] } = await statement.execute(db)
  if (!found) return { rows: 0, ids: [] }
  return { rows: Number(found.n), ids: found.ids === null ? null : JSON.parse(found.ids) as string[] }
}

/** An aggregate of `column` (raw SQL) over a group's rows as a JSON array's text: one value instead of a row each. */
export const jsonArrayOf = (db: Db, column: string): RawBuilder<string> => dialectOf(db).jsonArrayOf(column)

/** A set of ids the service found once, for a statement to start from (see SqlDialect.idRows). */
export const idRows = (db: Db, ids: readonly string[]): RawBuilder<{ session_id: string }> => dialectOf(db).idRows(ids)
export const inIds = (db: Db, column: string, ids: readonly string[]): RawBuilder<boolean> => dialectOf(db).inIds(column, ids)

/**
 * Whether one visit's searchable text contains `needle` (case-insensitively), read from its own session_texts rows:
 * for a few visits another filter already narrowed, cheaper than the trigram index's whole match set.
 * `project` and `session` name the outer query's columns.
 */
export function textProbe(db: Db, column: TextColumn, needle: string, project: string, session: string): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from session_texts x where x.project_id = ${sql.ref(project)} and x.session_id = ${sql.ref(session)}
    and ${dialectOf(db).textContains(column, needle, 'x.')})`
}

/** Term bitmaps (bits.ts), as the engine stores and combines them (see SqlDialect). */
export const chunkParam = (db: Db, chunk: Buffer): unknown => dialectOf(db).chunkParam(chunk)
export const asBits = (db: Db, value: unknown): RawBuilder<unknown> => dialectOf(db).asBits(value)
export const bitsType = (db: Db): string => dialectOf(db).bitsType
export const bitsOr = (db: Db, a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<unknown> => dialectOf(db).bitsOr(a, b)
export const bitsAndNot = (db: Db, a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<unknown> => dialectOf(db).bitsAndNot(a, b)
export const bitsAndAll = (db: Db, chunks: RawBuilder<unknown>): RawBuilder<unknown> => dialectOf(db).bitsAndAll(chunks)
export const bitsCount = (db: Db, chunks: readonly RawBuilder<unknown>[]): RawBuilder<number | string> => dialectOf(db).bitsCount(chunks)

export const nextSessionNum = (db: Db): RawBuilder<number> => dialectOf(db).nextSessionNum
export const asKey = (db: Db, value: unknown): RawBuilder<string> => dialectOf(db).asKey(value)

/** The plan weights (src/search/plan.ts) of the engine `db` runs on. */
export const planCosts = (db: Db): PlanCosts => dialectOf(db).planCosts

export const locksRows = (db: Db): boolean => dialectOf(db).locksRows
export const takesArrays = (db: Db): boolean => dialectOf(db).takesArrays

/** `INSERT … SELECT`'s rows from one array per column (takesArrays), of the given SQL types, in the insert's column order. */
export const rowsOfArrays = (columns: readonly (readonly [unknown[], string])[]): RawBuilder<unknown> =>
  sql`(select * from unnest(${sql.join(columns.map(([values, type]) => sql`cast(${values} as ${sql.raw(type)}[])`))}))`
