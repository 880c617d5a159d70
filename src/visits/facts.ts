import type { Selectable } from 'kysely'
import { sql, type RawBuilder } from 'kysely'
import Type, { type Static } from 'typebox'
import { MAX_USER_AGENT_LENGTH } from '../../common/limits.ts'
import { cleanText } from '../events/text.ts'
import { Nullable } from '../shared/schema.ts'
import type { SessionTable } from './tables.ts'

/**
 * What a session knows about its visitor, defined here once. The first batch that knows a fact sets
 * it and later batches never overwrite it. The API's Session, the import/export line, the columns the
 * reads select and the writes set all derive from this list, so a new fact is added here, as a
 * column (tables.ts and a migration), and wherever its value comes from (ingest builds the seed).
 * A fact named `fooBar` is stored in column `foo_bar`; an object-valued fact as JSON text.
 */
export const VISITOR_FACTS = {
  ip: Type.String({ maxLength: 64, description: 'Visitor IP; null when unknown.' }),
  country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166 alpha-2 country of the IP; null when unknown.' }),
  userAgent: Type.String({ maxLength: MAX_USER_AGENT_LENGTH, description: 'Visitor User-Agent; null when unknown.' }),
  utm: Type.Record(Type.String(), Type.String(), {
    description: 'Referral tags of the landing page URL (utm_*, yclid, gclid, fbclid, msclkid, …); null when it had none.',
  }),
}
type Facts = typeof VISITOR_FACTS
type FactKey = keyof Facts
/** The visitor facts of a session, each null when unknown. */
export type VisitorFacts = { [K in FactKey]: Static<Facts[K]> | null }

type Snake<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${Snake<T>}`
  : S
type FactColumn = Snake<FactKey>
/** The facts' columns: a fact without its column in SessionTable fails to compile here. */
type FactColumns = Pick<Selectable<SessionTable>, FactColumn> & Record<FactColumn, string | null>

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
const FACTS = (Object.keys(VISITOR_FACTS) as FactKey[]).map((key) => ({
  key,
  column: snake(key) as FactColumn,
  json: (VISITOR_FACTS[key] as { type?: unknown }).type === 'object',
}))

/** The facts' columns, for select lists. */
export const FACT_COLUMNS: readonly FactColumn[] = FACTS.map((f) => f.column)

/** The facts as stored: object values as JSON text. */
export function factColumns(facts: VisitorFacts): FactColumns {
  const row: Record<string, string | null> = {}
  for (const { key, column, json } of FACTS) {
    const value = facts[key]
    row[column] = value === null ? null : json ? JSON.stringify(value) : (value as string)
  }
  return row as FactColumns
}

/** A row's facts, as the API shows them. */
export function factsOf(row: FactColumns): VisitorFacts {
  const facts: Record<string, unknown> = {}
  for (const { key, column, json } of FACTS) {
    const value = row[column]
    facts[key] = value === null || !json ? value : JSON.parse(value)
  }
  return facts as VisitorFacts
}

/** The facts a row lacks, taken from `facts`; the ones it has are kept. */
export function keepFacts(row: FactColumns, facts: VisitorFacts): FactColumns {
  const fresh = factColumns(facts)
  const kept: Record<string, string | null> = {}
  for (const { column } of FACTS) kept[column] = row[column] ?? fresh[column]
  return kept as FactColumns
}

/** The values keepFactsSql binds, in its order: for a statement built once and run again with new values. */
export function factValues(facts: VisitorFacts): (string | null)[] {
  const fresh = factColumns(facts)
  return FACTS.map(({ column }) => fresh[column])
}

/** The same, in SQL for an UPDATE: `coalesce(column, value)` for every fact. */
export function keepFactsSql(facts: VisitorFacts): Record<FactColumn, RawBuilder<string | null>> {
  const fresh = factColumns(facts)
  return Object.fromEntries(FACTS.map(({ column }) =>
    // The column names are this module's constants, never input.
    [column, sql<string | null>`coalesce(${sql.raw(column)}, ${fresh[column]})`])) as Record<FactColumn, RawBuilder<string | null>>
}

/** The API's fields: every fact present, null when unknown. */
export type ViewFacts = { [K in FactKey]: Type.TUnsafe<Static<Facts[K]> | null> }
export const viewFacts = (): ViewFacts =>
  Object.fromEntries(FACTS.map(({ key }) => [key, Nullable(VISITOR_FACTS[key])])) as unknown as ViewFacts

/** Facts as a client sends them (import): each may be left out or null, and is bounded as the definition says. */
export type InputFacts = { [K in FactKey]: Type.TOptional<Type.TUnsafe<Static<Facts[K]> | null>> }
export const inputFacts = (): InputFacts =>
  Object.fromEntries(FACTS.map(({ key }) => [key, Type.Optional(Nullable(VISITOR_FACTS[key]))])) as unknown as InputFacts

/** Facts a client sent, with NUL characters (which PostgreSQL text refuses) replaced as in events. */
export function cleanFacts(input: { [K in FactKey]?: Static<Facts[K]> | null }): VisitorFacts {
  const facts: Record<string, unknown> = {}
  for (const { key } of FACTS) {
    const value = input[key]
    facts[key] = value == null ? null
      : typeof value === 'string' ? cleanText(value)
        : Object.fromEntries(Object.entries(value).map(([k, v]) => [cleanText(k), cleanText(v)]))
  }
  return facts as VisitorFacts
}
