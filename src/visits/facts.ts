import type { Selectable } from 'kysely'
import { sql, type RawBuilder } from 'kysely'
import Type, { type Static } from 'typebox'
import {
  MAX_ENVIRONMENT_LENGTH, MAX_META_KEY_LENGTH, MAX_META_VALUE_LENGTH, MAX_PAGE_URL_LENGTH, MAX_RELEASE_LENGTH, MAX_TAGS, MAX_TRAITS,
  MAX_USER_AGENT_LENGTH, MAX_USER_ID_LENGTH,
} from '../../common/limits.ts'
import { cleanText } from '../events/text.ts'
import { Nullable } from '../shared/schema.ts'
import type { SessionTable } from './tables.ts'

/** Trait and tag keys: a word of letters, digits and `_ . : -`, so `tag.<key>=` can name it in a query string. */
export const META_KEY_PATTERN = '^[A-Za-z0-9_.:-]+$'
/** Keys of traits and tags, checked as property names (a record keyed by a pattern would let other keys through). */
const metaKeys = { propertyNames: { pattern: META_KEY_PATTERN, maxLength: MAX_META_KEY_LENGTH } }
const metaRule = (what: string, max: number) => `At most ${max} ${what}: keys of letters, digits and \`_ . : -\` up to `
  + `${MAX_META_KEY_LENGTH} characters`

export const TraitsSchema = Type.Record(Type.String(), Type.Union([
  Type.String({ maxLength: MAX_META_VALUE_LENGTH }), Type.Number(), Type.Boolean(),
]), {
  ...metaKeys,
  maxProperties: MAX_TRAITS,
  description: `${metaRule('traits', MAX_TRAITS)}; values strings up to ${MAX_META_VALUE_LENGTH} characters, numbers or booleans.`,
})

/** Who the visitor is (Sessionwatch.identify). */
export const VisitorUser = Type.Object({
  id: Type.String({ minLength: 1, maxLength: MAX_USER_ID_LENGTH, description: `The page's id of its user, 1 to ${MAX_USER_ID_LENGTH} characters.` }),
  traits: Type.Optional(Nullable(TraitsSchema)),
}, { $id: 'VisitorUser', title: 'VisitorUser', additionalProperties: false })
export type VisitorUser = Static<typeof VisitorUser>

export const TagsSchema = Type.Record(Type.String(), Type.String({ maxLength: MAX_META_VALUE_LENGTH }), {
  ...metaKeys,
  maxProperties: MAX_TAGS,
  description: `${metaRule('tags', MAX_TAGS)}; string values up to ${MAX_META_VALUE_LENGTH} characters.`,
})

/**
 * What a session knows about its visitor, defined here once. A `first` fact is set by the first batch
 * that knows it and never overwritten (where the visit came from); a `latest` one by the latest batch that
 * carries it (who the page says the user is, its tags and release can change during a visit). The API's
 * Session, the import/export line, the columns the reads select and the writes set all derive from this
 * list, so a new fact is added here, as a column (tables.ts and a migration), and wherever its value comes
 * from (ingest builds the seed). A fact named `fooBar` is stored in column `foo_bar`; an object-valued fact
 * as JSON text; `user` in two columns, user_id (indexed for `user=`) and user_traits.
 */
export const VISITOR_FACTS = {
  ip: Type.String({ maxLength: 64, description: 'Visitor IP; null when unknown or not stored (the project\'s IP storage).' }),
  country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166 alpha-2 country of the IP; null when unknown.' }),
  userAgent: Type.String({ maxLength: MAX_USER_AGENT_LENGTH, description: 'Visitor User-Agent; null when unknown.' }),
  utm: Type.Record(Type.String(), Type.String(), {
    description: 'Referral tags of the landing page URL (utm_*, yclid, gclid, fbclid, msclkid, …); null when it had none.',
  }),
  entryUrl: Type.String({ maxLength: MAX_PAGE_URL_LENGTH, description: 'The first page of the visit; null when unknown.' }),
  browser: Type.String({ maxLength: 100, description: 'Browser family parsed from the User-Agent (Chrome, Firefox, Safari, Microsoft Edge, …); null when unknown.' }),
  os: Type.String({ maxLength: 100, description: 'Operating system family parsed from the User-Agent (Windows, macOS, iOS, Android, Linux, …); null when unknown.' }),
  user: Type.Object({ id: VisitorUser.properties.id, traits: Nullable(TraitsSchema) }, {
    additionalProperties: false,
    description: 'The identified user (Sessionwatch.identify) with its traits; the latest batch that names a user sets it; null when none did.',
  }),
  tags: Type.Record(Type.String(), Type.String({ maxLength: MAX_META_VALUE_LENGTH }), {
    ...metaKeys,
    maxProperties: MAX_TAGS,
    description: 'The visit\'s tags (Sessionwatch.setTags); the latest batch that carries tags sets them; null when none did.',
  }),
  release: Type.String({ maxLength: MAX_RELEASE_LENGTH, description: 'The site release the page ran (init option `release`); the latest batch that carries one sets it; null when none did.' }),
  environment: Type.String({ maxLength: MAX_ENVIRONMENT_LENGTH, description: 'The site environment (init option `environment`, e.g. production); the latest batch that carries one sets it; null when none did.' }),
}
type Facts = typeof VISITOR_FACTS
type FactKey = keyof Facts
/** The visitor facts of a session, each null when unknown. */
export type VisitorFacts = { [K in FactKey]: Static<Facts[K]> | null }

const LATEST: ReadonlySet<FactKey> = new Set<FactKey>(['user', 'tags', 'release', 'environment'])

type FactColumn = 'ip' | 'country' | 'user_agent' | 'utm' | 'entry_url' | 'browser' | 'os' | 'user_id' | 'user_traits' | 'tags'
  | 'release' | 'environment'
/** The facts' columns: one missing from SessionTable fails to compile here. */
type FactColumns = Pick<Selectable<SessionTable>, FactColumn>

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
/** Each fact's columns and how its value is stored in them (in column order). */
const FACTS = (Object.keys(VISITOR_FACTS) as FactKey[]).map((key) => {
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

/** The facts' columns, for select lists. */
export const FACT_COLUMNS: readonly FactColumn[] = FACTS.flatMap((f) => f.columns)

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

/** The API's fields: every fact present, null when unknown. */
export type ViewFacts = { [K in FactKey]: Type.TUnsafe<Static<Facts[K]> | null> }
export const viewFacts = (): ViewFacts =>
  Object.fromEntries(FACTS.map(({ key }) => [key, Nullable(VISITOR_FACTS[key])])) as unknown as ViewFacts

/** Facts as a client sends them (import): each may be left out or null, and is bounded as the definition says. */
export type InputFacts = { [K in FactKey]: Type.TOptional<Type.TUnsafe<Static<Facts[K]> | null>> }
export const inputFacts = (): InputFacts =>
  Object.fromEntries(FACTS.map(({ key }) => [key, Type.Optional(Nullable(VISITOR_FACTS[key]))])) as unknown as InputFacts

/** Text of a value a client sent with NUL characters (which PostgreSQL text refuses) replaced as in events, at any depth. */
function clean(value: unknown): unknown {
  if (typeof value === 'string') return cleanText(value)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [cleanText(k), clean(v)]))
}

/** Facts a client sent, cleaned of NUL characters. */
export function cleanFacts(input: { [K in FactKey]?: Static<Facts[K]> | null }): VisitorFacts {
  const facts: Record<string, unknown> = {}
  for (const { key } of FACTS) facts[key] = input[key] == null ? null : clean(input[key])
  return facts as VisitorFacts
}
