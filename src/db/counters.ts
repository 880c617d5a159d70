/**
 * Counters kept by upserts that add: rows of keys and amounts, added into their table's row for the key, which is
 * created when missing. The writers of hot counters (src/search/days.ts, src/pages/count.ts) gather a transaction's
 * changes and write them here at its end, several tables in one round trip on PostgreSQL.
 */
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely'
import { runReused } from './reuse.ts'
import { rowsOfArrays, takesArrays } from './sql.ts'

export type Value = string | number
/**
 * A column written by addRows: its name, its SQL type (for PostgreSQL's arrays), and for a counter how a row's stored
 * value takes the added one, when not by `+`.
 */
export type Column = readonly [name: string, type: string, combine?: (stored: RawBuilder<unknown>, added: RawBuilder<unknown>) => RawBuilder<unknown>]

/** Rows to add into one table's counters: its key columns, then its counters, one row per key. */
export interface Upsert { table: string; keys: readonly Column[]; counters: readonly Column[]; rows: readonly (readonly unknown[])[] }

/** Rows per SQLite statement: a row count is written as a sum of these, so each table has a few statements to prepare. */
const SIZES = [64, 32, 16, 8, 4, 2, 1] as const

/** `rows` in runs of SIZES, largest first: the row counts of statements that SQLite's statement cache keeps prepared. */
export function* inSizes<T>(rows: readonly T[]): Generator<T[]> {
  for (let i = 0; i < rows.length;) {
    const size = SIZES.find((s) => s <= rows.length - i) ?? 1
    yield rows.slice(i, i + size)
    i += size
  }
}

/**
 * Adds each upsert's rows into its table's counters, creating the rows that are missing. On PostgreSQL all in one
 * statement, a data-modifying WITH query per table with a column's values per parameter: one round trip, whatever
 * the rows. Its tables are all there, those without rows too: PostgreSQL runs a statement's data-modifying queries in
 * an order of its statement's shape, and two writers that locked the same tables in two orders could deadlock. On
 * SQLite, which runs in process, a statement per table and row count of SIZES.
 */
export async function addRows<DB>(db: Kysely<DB> | Transaction<DB>, upserts: readonly Upsert[]): Promise<void> {
  if (upserts.every((u) => u.rows.length === 0)) return
  if (takesArrays(db)) {
    const { arrays, statements } = upsertsOfArrays(upserts)
    const withs = statements.slice(0, -1).map((s, i) => sql`${sql.raw(`u${i}`)} as (${s})`)
    const statement = sql`${withs.length === 0 ? sql`` : sql`with ${sql.join(withs)} `}${statements.at(-1) ?? sql`select 1`}`
    await runReused(db, `add ${upserts.map((u) => u.table).join(' ')} as arrays`, arrays, () => ({ compile: () => statement.compile(db) }))
    return
  }
  for (const u of upserts) {
    for (const chunk of inSizes(u.rows)) {
      await runReused(db, `add ${u.table} ${chunk.length}`, chunk.flat(), () => ({
        compile: () => upsert(u, sql`values ${sql.join(chunk.map((r) => sql`(${sql.join(r)})`))}`).compile(db),
      }))
    }
  }
}

/** An upsert of `values` (rows in the order of its keys, then its counters) that adds into the counters of the rows it finds. */
const upsert = ({ table, keys, counters }: Upsert, values: RawBuilder<unknown>): RawBuilder<unknown> => sql`insert into ${sql.table(table)}
  (${sql.join([...keys, ...counters].map(([c]) => sql.ref(c)))}) ${values} on conflict (${sql.join(keys.map(([c]) => sql.ref(c)))})
  do update set ${sql.join(counters.map(([c, , combine = (stored, added) => sql`${stored} + ${added}`]) =>
    sql`${sql.ref(c)} = ${combine(sql.ref(`${table}.${c}`), sql.ref(`excluded.${c}`))}`))}`

/**
 * The upserts as PostgreSQL statements of a column's values per parameter (takesArrays), for a WITH query of a larger
 * statement, and those parameters in the statements' order.
 */
export function upsertsOfArrays(upserts: readonly Upsert[]): { arrays: unknown[][]; statements: RawBuilder<unknown>[] } {
  const parts = upserts.map((u) => ({ u, columns: [...u.keys, ...u.counters] }))
  const arrays = parts.flatMap(({ u, columns }) => columns.map((_, k) => u.rows.map((r) => r[k])))
  let at = 0
  return { arrays, statements: parts.map(({ u, columns }) => upsert(u, rowsOfArrays(columns.map(([, type]) => [arrays[at++] ?? [], type])))) }
}
