import { sql, type RawBuilder } from 'kysely'

/*
 * SQL whose spelling decides which index the planner takes, on both engines. The SQL snapshot and
 * query-plan tests (test/store/visits/sql.test.ts) hold every query built with these to its index.
 */

/**
 * `column` as an expression (`+column`): the same value, but no index on the column can serve it,
 * so the planner keeps to another index. Both engines accept a unary plus on a number.
 */
export const unindexed = (column: string): RawBuilder<number> => sql<number>`+${sql.raw(column)}`

/**
 * `(a, b) > (x, y)`: a keyset page after a row, in the order of a two-column index. Both engines
 * compare row values lexicographically and walk the index from the cursor (an `a > x or (a = x and
 * b > y)` spelling would not use the index on PostgreSQL).
 */
export const rowAfter = (columns: readonly [string, string], values: readonly [unknown, unknown]): RawBuilder<boolean> =>
  sql<boolean>`(${sql.raw(columns[0])}, ${sql.raw(columns[1])}) > (${values[0]}, ${values[1]})`

/**
 * A partial index's predicate, spelled as its migration spells it, with the constant inline: a
 * planner matches a query to a partial index only when it can prove the predicate, and a bound
 * parameter hides the value it would need to see.
 */
export const positive = (column: 'events_errors' | 'recording_chunks'): RawBuilder<boolean> =>
  sql<boolean>`${sql.raw(column)} > 0`
