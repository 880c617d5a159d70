import {
  MAX_META_KEY_LENGTH, MAX_META_VALUE_LENGTH, MAX_TAGS, MAX_TRAITS, MAX_USER_ID_LENGTH,
} from '../../common/limits.ts'
import type { IngestBody } from '../../src/contract/index.ts'

/** A user's traits as `identify` takes them: a flat map of strings, numbers and booleans. */
export type Traits = Record<string, string | number | boolean>
/** What a batch of events says of its visitor; the server answers 400 to a whole batch whose fields break its rules. */
export type VisitorFields = Pick<IngestBody, 'user' | 'tags' | 'release' | 'environment'>

/**
 * `value` as text of at most `max` characters ('' for null and undefined). A surrogate pair is never split: ajv
 * counts code points, a slice UTF-16 units, so the cut text passes the server's maxLength either way.
 */
export function text(value: unknown, max: number): string {
  // String() is the rule the docs give: a page's numbers and booleans (and its objects, as JavaScript prints them).
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  const s = value == null ? '' : String(value)
  return s.slice(0, s.length > max && /[\uD800-\uDBFF]/.test(s.charAt(max - 1)) ? max - 1 : max)
}

/**
 * A trait or tag key the server takes (META_KEY_PATTERN, MAX_META_KEY_LENGTH). `__proto__` matches the pattern, but
 * Fastify refuses a JSON body holding it (prototype poisoning) and an object would not even keep it as a key.
 */
const validKey = (key: string): boolean => key.length <= MAX_META_KEY_LENGTH && /^[\w.:-]+$/.test(key) && key !== '__proto__'

/** The own entries of a map the page passed; none for anything that is not an object (a string has entries too). */
const entriesOf = (value: unknown): [string, unknown][] => (value !== null && typeof value === 'object' ? Object.entries(value) : [])

/**
 * The user of `identify(id, traits)` as the server takes it, or null for an empty id (null and undefined count as
 * empty: `String(undefined)` would make every anonymous visitor one user named "undefined"). Invalid keys and
 * values (non-finite numbers, objects, null) are dropped; the first MAX_TRAITS valid traits are kept.
 */
export function userOf(id: unknown, traits: unknown): NonNullable<VisitorFields['user']> | null {
  const userId = text(id, MAX_USER_ID_LENGTH)
  if (!userId) return null
  const kept: Traits = {}
  let n = 0
  for (const [key, value] of entriesOf(traits)) {
    if (n === MAX_TRAITS) break
    const v = typeof value === 'string' ? text(value, MAX_META_VALUE_LENGTH)
      : typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) ? value : null
    if (v !== null && validKey(key)) {
      kept[key] = v
      n++
    }
  }
  return n > 0 ? { id: userId, traits: kept } : { id: userId }
}

/**
 * Who the visitor is, as the page said through `identify` and `setTags`: kept apart from `init`, so calls made
 * before it count, and read by every batch of events when it is built.
 */
export function makeVisitor() {
  let user: VisitorFields['user']
  // A Map: a plain object would take keys such as `constructor` for ones it already has.
  const tags = new Map<string, string>()
  return {
    /** The last call wins, traits included; an empty id changes nothing. */
    identify(id: unknown, traits: unknown): void {
      user = userOf(id, traits) ?? user
    },
    /** Merges into the tags: null or undefined removes a key; new keys beyond MAX_TAGS and invalid keys are dropped. */
    setTags(update: unknown): void {
      for (const [key, value] of entriesOf(update)) {
        if (value == null) tags.delete(key)
        else if (validKey(key) && (tags.has(key) || tags.size < MAX_TAGS)) tags.set(key, text(value, MAX_META_VALUE_LENGTH))
      }
    },
    /** The user and the tags (left out when there are none), for a batch. */
    fields(): VisitorFields {
      return { user, tags: tags.size > 0 ? Object.fromEntries(tags) : undefined }
    },
  }
}
