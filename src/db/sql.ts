import { PostgresAdapter, sql, type Expression, type QueryExecutorProvider, type RawBuilder } from 'kysely'
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
  const found = await collectIds(db, textMatchRows(db, projectId, column, needle, limit + 1), limit)
  return found.ids === null ? null : [...new Set(found.ids)]
}

export const textMatchRows = (db: Db, projectId: string, column: TextColumn, needle: string, rows: number): RawBuilder<{ session_id: string }> =>
  dialectOf(db).textMatchRows(projectId, column, needle, rows)

export const answersTextsInOneStatement = (db: Db): boolean => dialectOf(db).answersTextsInOneStatement

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

/** A set of ids the service found once, for a statement to start from (see SqlDialect.idRows). */
export const idRows = (db: Db, ids: readonly string[]): RawBuilder<{ session_id: string }> => dialectOf(db).idRows(ids)
export const inIds = (db: Db, column: string, ids: readonly string[]): RawBuilder<boolean> => dialectOf(db).inIds(column, ids)
export const inRows = (db: Db, column: string, rows: Expression<{ session_id: string }>): RawBuilder<boolean> => dialectOf(db).inRows(column, rows)

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
export const bitsOr = (db: Db, a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<unknown> => dialectOf(db).bitsOr(a, b)
export const bitsAndNot = (db: Db, a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<unknown> => dialectOf(db).bitsAndNot(a, b)
export const bitsAndAll = (db: Db, chunks: RawBuilder<unknown>): RawBuilder<unknown> => dialectOf(db).bitsAndAll(chunks)
export const bitsCount = (db: Db, chunks: readonly RawBuilder<unknown>[]): RawBuilder<number | string> => dialectOf(db).bitsCount(chunks)

export const nextSessionNum = (db: Db): RawBuilder<number> => dialectOf(db).nextSessionNum
export const asKey = (db: Db, value: unknown): RawBuilder<string> => dialectOf(db).asKey(value)

/** The planner's weights for the engine `db` runs on. */
export const rowReadInProbes = (db: Db): number => dialectOf(db).planCosts.rowReadInProbes
export const listedIdCosts = (db: Db): PlanCosts['listedIds'] => dialectOf(db).planCosts.listedIds

export const locksRows = (db: Db): boolean => dialectOf(db).locksRows
export const takesArrays = (db: Db): boolean => dialectOf(db).takesArrays
export const writesEventJson = (db: Db): boolean => dialectOf(db).writesEventJson

/** `INSERT … SELECT`'s rows from one array per column (takesArrays), of the given SQL types, in the insert's column order. */
export const rowsOfArrays = (columns: readonly (readonly [unknown[], string])[]): RawBuilder<unknown> =>
  sql`(select * from unnest(${sql.join(columns.map(([values, type]) => sql`cast(${values} as ${sql.raw(type)}[])`))}))`

/** Lifts the statement timeout for the rest of the transaction `trx` (SQLite has none). */
export const withoutStatementTimeout = (trx: Db): Promise<void> => dialectOf(trx).liftStatementTimeout(trx)

const isPostgres = (db: Db): boolean => db.getExecutor().adapter instanceof PostgresAdapter

/**
 * The statements that keep `column` of `table` written by a trigger from the row's other columns: `value(row)` is its
 * expression, each column read from `row` (PostgreSQL's `new`) or, given none, from the row an UPDATE is at; with the
 * columns it reads, whose change writes it again. PostgreSQL sets it before the row is written; SQLite's triggers cannot
 * change the row they fire for, so the row is written again, found by its rowid, setting only `column`, which fires
 * no trigger.
 */
export function keptColumnTrigger(
  db: Db, table: string, column: string, value: (row?: string) => { json: RawBuilder<string>; columns: readonly string[] },
): string[] {
  const trigger = `${table}_${column}`
  if (isPostgres(db)) {
    const { json, columns } = value('new')
    return [
      `create or replace function sessionwatch_${trigger}() returns trigger language plpgsql as $body$
        begin new.${column} := ${json.compile(db).sql}; return new; end $body$`,
      // `or replace` (PostgreSQL 14): a share row exclusive lock, where dropping the trigger first would lock out reads.
      `create or replace trigger ${trigger} before insert or update of ${columns.join(', ')} on ${table}
        for each row execute function sessionwatch_${trigger}()`,
    ]
  }
  const { json, columns } = value()
  const write = `update ${table} set ${column} = ${json.compile(db).sql} where rowid = new.rowid`
  return [
    `drop trigger if exists ${trigger}_insert`,
    `drop trigger if exists ${trigger}_update`,
    `create trigger ${trigger}_insert after insert on ${table} begin ${write}; end`,
    `create trigger ${trigger}_update after update of ${columns.join(', ')} on ${table} begin ${write}; end`,
  ]
}


/** How a database writes a row's columns as the API's JSON: `table` qualifies each column (a trigger's `new`). */
export interface JsonWriter {
  /** A text column as a JSON string, `null` when null, escaped exactly as JSON.stringify escapes. */
  string: (column: string) => RawBuilder<string>
  /**
   * A column of epoch milliseconds as a JSON string in ISO 8601 UTC with milliseconds, as src/util/time.ts `toIso`
   * writes it, years 0000 to 9999 (an instant before 1970 is negative).
   */
  instant: (column: string) => RawBuilder<string>
  /** A column whose value is its own JSON (stored JSON text, an integer) as it is, `null` when null. */
  asIs: (column: string) => RawBuilder<string>
}

export function jsonWriter(db: Db, table?: string): JsonWriter {
  const ref = (column: string): RawBuilder<unknown> => sql.ref(table === undefined ? column : `${table}.${column}`)
  // PostgreSQL's to_json escapes as JSON.stringify does (the two short escapes, \u00xx in lower case for the other
  // controls, nothing else), and its text holds no NUL and no lone surrogate to differ on.
  if (isPostgres(db)) {
    return {
      string: (column) => sql<string>`coalesce(cast(to_json(${ref(column)}) as text), 'null')`,
      instant: (column) => postgresInstant(ref(column)),
      asIs: (column) => jsonAsIs(ref(column)),
    }
  }
  return {
    string: (column) => sql<string>`coalesce(json_quote(${ref(column)}), 'null')`,
    instant: (column) => sqliteInstant(ref(column)),
    asIs: (column) => jsonAsIs(ref(column)),
  }
}

const jsonAsIs = (value: RawBuilder<unknown>): RawBuilder<string> => sql<string>`coalesce(${value}, 'null')`

function sqliteInstant(ms: RawBuilder<unknown>): RawBuilder<string> {
  // Whole seconds and milliseconds apart, in integers: a fractional second would be rounded by the formatting. SQLite's
  // `/` and `%` truncate toward zero, so before 1970 the milliseconds are taken up from the second below.
  const part = sql`((${ms} % 1000 + 1000) % 1000)`
  return sql<string>`'"' || strftime('%Y-%m-%dT%H:%M:%S', (${ms} - ${part}) / 1000, 'unixepoch') || printf('.%03dZ"', ${part})`
}

function postgresInstant(ms: RawBuilder<unknown>): RawBuilder<string> {
  // A timestamp without time zone: no session setting changes the text. Whole seconds and the milliseconds are added
  // apart: PostgreSQL multiplies an interval by a double, which holds a count of microseconds exactly only up to 2^53
  // (about the year 4254), and a count of seconds in every year. PostgreSQL counts no year 0: toIso's 0000 is its
  // 1 BC, which its YYYY writes as 0001.
  const at = sql`(timestamp '1970-01-01' + ${ms} / 1000 * interval '1 second' + ${ms} % 1000 * interval '1 millisecond')`
  const time = '-MM-DD"T"HH24:MI:SS.MS"Z"'
  return sql<string>`('"' || case when ${ms} < ${sql.lit(YEAR_1_MS)} then '0000' || to_char(${at}, ${sql.lit(time)})
    else to_char(${at}, ${sql.lit(`YYYY${time}`)}) end || '"')`
}
/** 0001-01-01T00:00:00.000Z in epoch milliseconds. */
const YEAR_1_MS = -62_135_596_800_000

/**
 * A column of double precision as a JSON number where SQLite writes it as JavaScript does: `null`, or a whole number
 * (as an integer: SQLite would write `12.0`). A fraction is SQL null: SQLite writes 17 digits where JavaScript writes
 * the fewest that read back the same (`0.33333333333333332` against `0.3333333333333333`), so the service writes it
 * from the value (`fractionOf`).
 */
export const jsonWholeNumber = (column: string): RawBuilder<string | null> => {
  const value = sql.ref(column)
  return sql<string | null>`case when ${value} is null then 'null' when ${value} = cast(${value} as integer) then cast(cast(${value} as integer) as text) end`
}

/** `piece` where jsonWholeNumber cannot write the column (a fraction), else SQL null. */
export const fractionOf = <T>(column: string, piece: RawBuilder<T>): RawBuilder<T | null> => {
  const value = sql.ref(column)
  return sql<T | null>`case when ${value} <> cast(${value} as integer) then ${piece} end`
}

/** A member of a JSON object: its value, or one left out when `absentWhenNull` (a column) is null. */
export type JsonMember = RawBuilder<unknown> | { absentWhenNull: string; value: RawBuilder<unknown> }

/** A JSON object of named values (each a piece above, or an integer column), its keys in the given order. */
export function jsonObject(fields: readonly (readonly [string, JsonMember])[]): RawBuilder<string> {
  const pieces = fields.map(([key, member], i) => {
    const name = sql.lit(`${i === 0 ? '{' : ','}${JSON.stringify(key)}:`)
    if (!('absentWhenNull' in member)) return sql`${name} || ${member}`
    if (i === 0) throw new Error(`jsonObject: the first member (${key}) cannot be absent`)
    return sql`case when ${sql.ref(member.absentWhenNull)} is null then '' else ${name} || ${member.value} end`
  })
  return sql<string>`(${sql.join(pieces, sql` || `)} || '}')`
}
