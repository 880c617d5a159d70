import { type RawBuilder, type Selectable, sql } from 'kysely'
import type { Static } from 'typebox'
import { FACT_KEYS, VISITOR_FACTS, type FactKey, type VisitorFacts, type VisitorUser } from '../contract/index.ts'
import { cleanText } from '../events/text.ts'
import type { FactColumn, SessionTable } from './tables.ts'

const LATEST: ReadonlySet<FactKey> = new Set<FactKey>(['user', 'tags', 'release', 'environment'])

/** The facts' columns: one missing from SessionTable fails to compile here. */
type FactColumns = Pick<Selectable<SessionTable>, FactColumn>

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
/** Each fact's columns and how its value is stored in them (in column order). */
const FACTS = FACT_KEYS.map((key) => {
  const json = (VISITOR_FACTS[key] as { type?: unknown }).type === 'object'
  if (key === 'user') {
    return {
      key, latest: true, json, columns: ['user_id', 'user_traits'] as FactColumn[],
      store: (v: unknown) => {
        const user = v as VisitorUser | null
        return user === null ? [null, null] : [user.id, user.traits == null ? null : JSON.stringify(user.traits)]
      },
      load: (c: (string | null)[]) => (c[0] == null ? null : { id: c[0], traits: c[1] == null ? null : JSON.parse(c[1]) as unknown }),
    }
  }
  return {
    key, latest: LATEST.has(key), json, columns: [snake(key)] as FactColumn[],
    store: (v: unknown) => [v === null ? null : json ? JSON.stringify(v) : (v as string)],
    load: (c: (string | null)[]) => (c[0] == null || !json ? c[0] ?? null : JSON.parse(c[0]) as unknown),
  }
})

/** A seed that knows nothing yet: every fact null. */
export const noFacts = (): VisitorFacts => Object.fromEntries(FACTS.map(({ key }) => [key, null])) as VisitorFacts


/** The facts as stored: object values as JSON text. */
export function factColumns(facts: VisitorFacts): FactColumns {
  const row: Record<string, string | null> = {}
  for (const { key, columns, store } of FACTS) {
    const values = store(facts[key])
    columns.forEach((column, i) => { row[column] = values[i] ?? null })
  }
  return row as FactColumns
}

/** A row's facts, as the API shows them. */
export function factsOf(row: FactColumns): VisitorFacts {
  const facts: Record<string, unknown> = {}
  for (const { key, columns, load } of FACTS) facts[key] = load(columns.map((c) => row[c]))
  return facts as VisitorFacts
}

/** The row's facts updated by `facts`: a first fact the row has is kept, a latest one the batch carries replaces it. */
export function keepFacts(row: FactColumns, facts: VisitorFacts): FactColumns {
  const fresh = factColumns(facts)
  const kept: Record<string, string | null> = {}
  for (const { key, latest, columns } of FACTS) {
    // A fact's columns go together: a new user replaces the old one's traits too.
    const takeFresh = latest ? facts[key] !== null : row[columns[0] ?? 'ip'] === null
    for (const column of columns) kept[column] = takeFresh ? fresh[column] : row[column]
  }
  return kept as FactColumns
}

/** The values keepFactsSql binds, in its order: for a statement built once and run again with new values. */
export function factValues(facts: VisitorFacts): (string | null)[] {
  const fresh = factColumns(facts)
  return FACTS.flatMap(({ latest, columns }) => (latest && columns.length > 1
    ? [fresh[columns[0] ?? 'ip'], ...columns.map((c) => fresh[c])]
    : columns.map((c) => fresh[c])))
}

/** The same, in SQL for an UPDATE: `coalesce(column, value)` for a first fact, `coalesce(value, column)` for a latest one. */
export function keepFactsSql(facts: VisitorFacts): Record<FactColumn, RawBuilder<string | null>> {
  const fresh = factColumns(facts)
  return keepFactsBy((column) => sql.raw(column), (column) => sql`${fresh[column]}`)
}

/**
 * The same for an UPDATE … FROM a table of new facts (write.ts, a group's live visits): each fact kept from the row of
 * `from` that joins the session, whose columns are named as the session's.
 */
export const keepFactsFrom = (from: string): Record<FactColumn, RawBuilder<string | null>> =>
  keepFactsBy((column) => sql.ref(`sessions.${column}`), (column) => sql.ref(`${from}.${column}`))

/** The rule of keepFactsSql, for any source of the session's current value and of the batch's. */
function keepFactsBy(
  current: (column: FactColumn) => RawBuilder<unknown>, fresh: (column: FactColumn) => RawBuilder<unknown>,
): Record<FactColumn, RawBuilder<string | null>> {
  const set: [string, RawBuilder<string | null>][] = []
  for (const { latest, columns } of FACTS) {
    // The column names are this module's constants, never input.
    const [first = 'ip', ...rest] = columns
    if (!latest) set.push([first, sql<string | null>`coalesce(${current(first)}, ${fresh(first)})`])
    else if (rest.length === 0) set.push([first, sql<string | null>`coalesce(${fresh(first)}, ${current(first)})`])
    else {
      // A multi-column fact (user): all its columns change when the batch carries it, none otherwise.
      set.push([first, sql<string | null>`coalesce(${fresh(first)}, ${current(first)})`])
      for (const column of rest) {
        // Cast: PostgreSQL cannot type a parameter that only `is null` looks at.
        set.push([column, sql<string | null>`case when cast(${fresh(first)} as text) is null then ${current(column)} else ${fresh(column)} end`])
      }
    }
  }
  return Object.fromEntries(set) as Record<FactColumn, RawBuilder<string | null>>
}

/** Each fact's columns and whether its value is stored as JSON text, in the schema's order (for SQL that writes the API's JSON: sessions/views.ts). */
export const FACT_LAYOUT: readonly { key: FactKey; columns: readonly FactColumn[]; json: boolean }[] = FACTS

/** Text of a value a client sent with NUL characters (which PostgreSQL text refuses) replaced as in events, at any depth. */
function clean(value: unknown): unknown {
  if (typeof value === 'string') return cleanText(value)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [cleanText(k), clean(v)]))
}

/** Facts a client sent, cleaned of NUL characters. */
export function cleanFacts(input: { [K in FactKey]?: Static<(typeof VISITOR_FACTS)[K]> | null }): VisitorFacts {
  const facts: Record<string, unknown> = {}
  for (const { key } of FACTS) facts[key] = input[key] == null ? null : clean(input[key])
  return facts as VisitorFacts
}
