import { PostgresAdapter, sql, type Expression, type RawBuilder } from 'kysely'
import { BITS_PER_CHUNK } from './bits.ts'
import type { Engine } from '../config.ts'
import type { Db } from './database.ts'

/*
 * SQL whose spelling decides which index the planner takes, on both engines. The SQL snapshot and
 * query-plan tests (test/store/visits/sql.test.ts) hold every query built with these to its index.
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
 * the columns. Both engines compare row values lexicographically and walk the index from the cursor (an
 * `a > x or (a = x and b > y)` spelling would not use the index on PostgreSQL). A column may be an
 * expression (`unindexed`) when the query must not start from that index.
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

const isPostgres = (db: Db): boolean => db.getExecutor().adapter instanceof PostgresAdapter

/** `needle` as an ILIKE pattern for "contains", its own `%`, `_` and `\\` escaped. */
const containsPattern = (needle: string): string => `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
/**
 * `needle` as an FTS5 query: a quoted string, which the trigram tokenizer matches as a substring; `page` searches
 * the pages (`url=`), `body` all the text, pages included (`q=`).
 */
const ftsPhrase = (column: 'page' | 'body', needle: string): string => `${column === 'page' ? 'page : ' : ''}"${needle.replace(/"/g, '""')}"`
/** The same as an ILIKE condition on a session_texts row (alias `x` or none). */
const ilike = (column: 'page' | 'body', needle: string, alias = ''): RawBuilder<boolean> => (column === 'page'
  ? sql<boolean>`${sql.raw(`${alias}page`)} ilike ${containsPattern(needle)}`
  : sql<boolean>`(${sql.raw(`${alias}page`)} ilike ${containsPattern(needle)} or ${sql.raw(`${alias}body`)} ilike ${containsPattern(needle)})`)

/**
 * The sessions whose searchable text (session_texts: `page` or `body`) contains `needle`, case-insensitively, read
 * once from a trigram index: SQLite's FTS5 `session_fts` (a quoted string matches as a substring from the index alone;
 * the index leads the join to the text rows), PostgreSQL's pg_trgm GIN index. At most `limit` rows of text are read:
 * null when more match (too broad to count at once). A needle under 3 characters has no trigram: callers refuse it.
 */
export async function textMatchSessions(
  db: Db, projectId: string, column: 'page' | 'body', needle: string, limit: number,
): Promise<string[] | null> {
  const found = await collectIds(db, textMatchRows(db, projectId, column, needle, limit + 1), limit)
  return found.ids === null ? null : [...new Set(found.ids)]
}

/** The rows of text (`session_id`, a visit's as often as it has texts that match) textMatchSessions reads, at most `rows`. */
const textMatchRows = (db: Db, projectId: string, column: 'page' | 'body', needle: string, rows: number): RawBuilder<{ session_id: string }> =>
  (isPostgres(db)
    ? sql`select session_id from session_texts where project_id = ${projectId} and ${ilike(column, needle)} limit ${rows}`
    : sql`select x.session_id from session_fts f cross join session_texts x on x.rowid = f.rowid
      where session_fts match ${ftsPhrase(column, needle)} and x.project_id = ${projectId} limit ${rows}`)

/**
 * The `session_id`s a query lists, and how many rows it listed, as one row of a JSON array the engine builds: 10,000
 * rows handed to the service one by one cost it ~10 ms. Given `most`, the ids only when the query listed at most that
 * many rows, else null: the engine still builds the array (a CASE does not stop an aggregate), but it is not sent and
 * parsed for nothing (a text search refused as too broad, 10,001 ids: 45.9 against 53.3 ms through pg, median of 31;
 * a statement that materialized and counted the rows first spared as much, and cost the searches it answers 1.2 ms).
 */
export async function collectIds(db: Db, rows: Expression<unknown>): Promise<{ rows: number; ids: string[] }>
export async function collectIds(db: Db, rows: Expression<unknown>, most: number): Promise<{ rows: number; ids: string[] | null }>
export async function collectIds(db: Db, rows: Expression<unknown>, most?: number): Promise<{ rows: number; ids: string[] | null }> {
  const all = isPostgres(db) ? sql`coalesce(json_agg(m.session_id), '[]')::text` : sql`json_group_array(m.session_id)`
  const ids = most === undefined ? all : sql`case when count(*) <= ${most} then ${all} end`
  const statement = sql<{ n: number | string; ids: string | null }>`select count(*) as n, ${ids} as ids from (${rows}) as m`
  const { rows: [found] } = await statement.execute(db)
  if (!found) return { rows: 0, ids: [] }
  return { rows: Number(found.n), ids: found.ids === null ? null : JSON.parse(found.ids) as string[] }
}

/**
 * A list of ids as a query of one column, `session_id`, in the stored keys' collation (see asKey): a set the service
 * found once (textMatchSessions), for a statement to start from, as one parameter whatever its size (inIds probes one).
 */
export const idRows = (db: Db, ids: readonly string[]): RawBuilder<{ session_id: string }> => (isPostgres(db)
  ? sql`select unnest(cast(${ids} as text[])) collate "C" as session_id`
  : sql`select value as session_id from json_each(${JSON.stringify(ids)})`)

/**
 * Whether `column` is one of `ids`, probed per row, as one parameter whatever their number. PostgreSQL: a hashed
 * subplan, `(column in (select unnest(…))) is true`, which hashes the ids once when the statement runs and probes the
 * hash per row. `is true` keeps it a filter: a bare `in (select unnest(…))` became a join that read the row of every
 * listed visit by its id and sorted them all, where the plan walked the list order (url='s page, 5,000 ids among 1M
 * visits: 36–51 ms, against 15–19 for a walk of the lastSeenAt index for the page's keys, plan.ts, a sparse walk). It
 * replaced `= any(array)`, whose hash is as cheap but whose array the planner reads element by element when it plans
 * each statement: the page of 5,030 ids took 12.5 ms that way against 9.4 (median of 15, the 1M-visit benchmark).
 * PostgreSQL hashes it only when its estimate of the hash (~56 bytes an id, ~0.6 MB for the 10,000 that
 * SEARCH_TEXT_MATCH_LIMIT and PLAN_COSTS' mostVisits allow) fits in work_mem × hash_mem_multiplier; else it scans the list
 * for every row. The default work_mem is 4 MB: docs/scaling.md asks for at least 1 MB. SQLite builds an index of
 * json_each's values once.
 */
export const inIds = (db: Db, column: string, ids: readonly string[]): RawBuilder<boolean> => (isPostgres(db)
  ? inRows(db, column, idRows(db, ids))
  : sql<boolean>`${sql.ref(column)} in (select value from json_each(${JSON.stringify(ids)}))`)

/** Whether `column` is one of the `session_id`s a query lists (inIds' form: on PostgreSQL, a hashed subplan). */
const inRows = (db: Db, column: string, rows: Expression<{ session_id: string }>): RawBuilder<boolean> => (isPostgres(db)
  ? sql<boolean>`(${sql.ref(column)} in (${rows})) is true`
  : sql<boolean>`${sql.ref(column)} in (${rows})`)

/**
 * Whether one visit's searchable text contains `needle` (case-insensitively), read from its own session_texts rows:
 * for a few visits another filter already narrowed, cheaper than the trigram index's whole match set.
 * `project` and `session` name the outer query's columns.
 */
export function textProbe(db: Db, column: 'page' | 'body', needle: string, project: string, session: string): RawBuilder<boolean> {
  const lower = (c: string) => sql`instr(lower(x.${sql.raw(c)}), lower(${needle})) > 0`
  const contains = isPostgres(db) ? ilike(column, needle, 'x.') : column === 'page' ? lower('page') : sql`(${lower('page')} or ${lower('body')})`
  return sql<boolean>`exists (select 1 from session_texts x where x.project_id = ${sql.ref(project)} and x.session_id = ${sql.ref(session)}
    and ${contains})`
}

/*
 * Term bitmaps (bits.ts): SQLite stores a chunk as a blob and runs the operations as functions of its own (sqlite.ts);
 * PostgreSQL stores a bit(BITS_PER_CHUNK) and has them built in.
 */

const bitString = sql.raw(`bit(${BITS_PER_CHUNK})`)

/** A chunk as the parameter the engine takes: SQLite its bytes, PostgreSQL its hex, cast by `asBits`. */
export const chunkParam = (db: Db, chunk: Buffer): unknown => (isPostgres(db) ? `x${chunk.toString('hex')}` : chunk)

/** A chunkParam value in SQL, as a stored chunk. */
export const asBits = (db: Db, value: unknown): RawBuilder<unknown> => (isPostgres(db) ? sql`cast(${value} as ${bitString})` : sql`${value}`)

/** `a` with `b`'s bits set too. */
export const bitsOr = (db: Db, a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<unknown> =>
  (isPostgres(db) ? sql`(${a} | ${b})` : sql`sw_bits_or(${a}, ${b})`)

/** `a` with `b`'s bits cleared. */
export const bitsAndNot = (db: Db, a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<unknown> =>
  (isPostgres(db) ? sql`(${a} & ~${b})` : sql`sw_bits_and_not(${a}, ${b})`)

/** The AND of a group's chunks (an aggregate). */
export const bitsAndAll = (db: Db, chunks: RawBuilder<unknown>): RawBuilder<unknown> =>
  (isPostgres(db) ? sql`bit_and(${chunks})` : sql`sw_bits_and_agg(${chunks})`)

/** How many bits are set in every one of the chunks. */
export const bitsCount = (db: Db, chunks: readonly RawBuilder<unknown>[]): RawBuilder<number | string> =>
  (isPostgres(db) ? sql`bit_count(${sql.join(chunks, sql` & `)})` : sql`sw_bits_count(${sql.join(chunks)})`)

/**
 * A new visit's number (`sessions.num`, its bit in the term bitmaps), never one a stored visit has: PostgreSQL's
 * sequence; on SQLite one past the largest (its index's last entry), which only the one writer at a time reads.
 * A number freed by a deleted visit may come again on SQLite: the deletion cleared its bits.
 */
export const nextSessionNum = (db: Db): RawBuilder<number> => (isPostgres(db)
  ? sql<number>`nextval('session_nums')`
  : sql<number>`(select coalesce(max(num), 0) + 1 from sessions)`)

/**
 * A parameter as an id or key of a stored row, for a VALUES table joined to one (an UPDATE … FROM): on PostgreSQL ids
 * and keys are `text collate "C"` (migrations.ts), and a join on text of another collation cannot use their indexes.
 */
export const asKey = (db: Db, value: unknown): RawBuilder<string> =>
  (isPostgres(db) ? sql<string>`cast(${value} as text) collate "C"` : sql<string>`cast(${value} as text)`)

/**
 * What a search's plan weighs its ways with (src/search/plan.ts), in probes of an index by id. `rowRead`: reading a
 * session's row by its id. `listed`: listing a filter's visits once, per visit, and probing a walked entry in that
 * list (inIds), per entry, for at most `mostVisits` (the hash must fit in work_mem); null where listing cannot pay.
 * Tuned on the 1M-visit benchmark, not derived.
 */
export interface PlanCosts {
  rowRead: number
  listed: { perVisit: number; perEntry: number; mostVisits: number } | null
}

/** Each engine's plan weights. SQLite probes its json_each list no cheaper than an index, so it never lists. */
export const PLAN_COSTS = {
  sqlite: { rowRead: 10, listed: null },
  postgres: { rowRead: 5, listed: { perVisit: 0.33, perEntry: 0.08, mostVisits: 10_000 } },
} as const satisfies Record<Engine, PlanCosts>

/** This database's plan weights. */
export const planCosts = (db: Db): PlanCosts => PLAN_COSTS[isPostgres(db) ? 'postgres' : 'sqlite']

/** Whether concurrent writers lock rows, and so must take them in one order: PostgreSQL; SQLite writes one at a time. */
export const locksRows = (db: Db): boolean => isPostgres(db)

/**
 * Whether the engine takes many rows to insert as one array per column (`rowsOfArrays`): PostgreSQL, where that is
 * one statement of a parameter a column whatever the row count, parsed and bound in microseconds, where rows of VALUES
 * (16 parameters a row) cost its parser and binder ~20 µs a row (docs/performance.md). Not SQLite, which has no arrays
 * and nothing to save: its statements are prepared once, and a value is bound in-process.
 */
export const takesArrays = (db: Db): boolean => isPostgres(db)

/** `INSERT … SELECT`'s rows from one array per column, of the given SQL types, in the insert's column order. */
export const rowsOfArrays = (columns: readonly (readonly [unknown[], string])[]): RawBuilder<unknown> =>
  sql`(select * from unnest(${sql.join(columns.map(([values, type]) => sql`cast(${values} as ${sql.raw(type)}[])`))}))`
