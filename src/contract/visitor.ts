import Type, { type Static } from 'typebox'
import { MAX_ENVIRONMENT_LENGTH, MAX_META_KEY_LENGTH, MAX_META_VALUE_LENGTH, MAX_RELEASE_LENGTH, MAX_TAGS, MAX_TRAITS, MAX_USER_ID_LENGTH } from '../../common/limits.ts'
import { MAX_PAGE_URL_LENGTH, MAX_USER_AGENT_LENGTH } from './limits.ts'
import { Nullable } from '../util/schema.ts'

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
export type FactKey = keyof Facts
/** The facts' names, in the schema's order. */
export const FACT_KEYS = Object.keys(VISITOR_FACTS) as FactKey[]
/** The visitor facts of a session, each null when unknown. */
export type VisitorFacts = { [K in FactKey]: Static<Facts[K]> | null }


/** The API's fields: every fact present, null when unknown. */
export type ViewFacts = { [K in FactKey]: Type.TUnsafe<Static<Facts[K]> | null> }
export const viewFacts = (): ViewFacts =>
  Object.fromEntries(FACT_KEYS.map((key) => [key, Nullable(VISITOR_FACTS[key])])) as unknown as ViewFacts

/** Facts as a client sends them (import): each may be left out or null, and is bounded as the definition says. */
export type InputFacts = { [K in FactKey]: Type.TOptional<Type.TUnsafe<Static<Facts[K]> | null>> }
export const inputFacts = (): InputFacts =>
  Object.fromEntries(FACT_KEYS.map((key) => [key, Type.Optional(Nullable(VISITOR_FACTS[key]))])) as unknown as InputFacts

