/**
 * Cursors of the lists (`next` in an answer, `?after=` in the next request): the sort key of a page's last
 * row, the position of the row after it, and a fingerprint of the list they belong to (the project and the
 * parsed filters). A cursor goes on where its page ended at the cost of a first page: the next page is read
 * from an index from that key on, where `offset` makes both engines walk every row it skips.
 *
 * Opaque to callers (base64url of a small JSON array) but not secret: it holds nothing a caller could not
 * see in the answer that gave it, and every read with it still selects the caller's own project.
 */
import { createHash } from 'node:crypto'
import { DEFAULT_LIMIT } from '../../common/limits.ts'
import { MAX_CURSOR_LENGTH } from './limits.ts'
import { invalidParameter } from '../errors.ts'
import { CURSOR_PATTERN } from './schema.ts'

/** A sort key's parts, as the list orders by them: an integer (times, counts) or a string (ids). */
export type KeyPart = number | string
export type KeyShape = readonly ('integer' | 'string')[]
/** The key a shape describes: `['integer', 'string']` is `[number, string]`. */
export type KeyOf<S extends KeyShape> = { readonly [I in keyof S]: S[I] extends 'integer' ? number : string }

// Changing it changes what every cursor opens with: CURSOR_PATTERN (schema.ts) says `[1,"`.
const VERSION = 1

/** What a cursor carries once read: where the next page starts and the key it starts after. */
export interface Cursor<S extends KeyShape> {
  position: number
  key: KeyOf<S>
}

/**
 * The fingerprint of a list: its kind, the project and its filters as the service parsed them, so two
 * spellings of one filter (`browser=chrome`, `browser=Chrome`) give one list, and another filter another.
 */
export function listScope(kind: string, projectId: string, filters: unknown): string {
  return createHash('sha256').update(JSON.stringify([kind, projectId, filters])).digest('base64url').slice(0, 16)
}

const CURSOR_RE = new RegExp(CURSOR_PATTERN)

export function makeCursor(scope: string, position: number, key: readonly KeyPart[]): string {
  return Buffer.from(JSON.stringify([VERSION, scope, position, ...key])).toString('base64url')
}

/**
 * `after` read back: 400 naming `after` when it is not a cursor this service gave, or when it belongs to
 * another list (other filters, another project, another sort).
 */
export function readCursor<S extends KeyShape>(scope: string, raw: string, shape: S): Cursor<S> {
  const bad = () => invalidParameter('after', `after must be the \`next\` cursor of an earlier answer of this list, as given (got ${JSON.stringify(clip(raw))})`)
  if (raw.length > MAX_CURSOR_LENGTH || !CURSOR_RE.test(raw)) throw bad()
  let parts: unknown
  try {
    parts = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'))
  } catch {
    throw bad()
  }
  if (!Array.isArray(parts) || parts.length !== 3 + shape.length || parts[0] !== VERSION || typeof parts[1] !== 'string') throw bad()
  const position: unknown = parts[2]
  if (!Number.isSafeInteger(position) || (position as number) < 0) throw bad()
  const key = parts.slice(3)
  if (!key.every((part, i) => (shape[i] === 'integer' ? Number.isSafeInteger(part) : typeof part === 'string'))) throw bad()
  if (parts[1] !== scope) {
    throw invalidParameter('after', 'after belongs to a list with other filters: repeat the filters (and sort) of the request that gave it; '
      + 'only limit may change')
  }
  // Each part was checked against the shape above.
  return { position: position as number, key: key as unknown as KeyOf<S> }
}

/**
 * The `next` of a page: the cursor after its last row, or null when no row follows it (a short page, or the
 * exact total reached).
 */
export function nextCursor<R>(scope: string, position: number, limit: number, total: number, rows: readonly R[], key: (row: R) => readonly KeyPart[]): string | null {
  const last = rows.at(-1)
  if (last === undefined || rows.length < limit || position + rows.length >= total) return null
  return makeCursor(scope, position + rows.length, key(last))
}

/**
 * The page a request asks for: `limit` rows (default DEFAULT_LIMIT) after a cursor's key (`after`, with no `offset`),
 * or from `offset`. `position` is where the page starts in the list, for the answer's `offset` and `next`; `page` is
 * what the store reads (offset 0 after a cursor: the key says where).
 */
export function pageStart<S extends KeyShape>(
  scope: string, query: { limit?: number; offset?: number; after?: string }, shape: S,
): { position: number; page: { limit: number; offset: number; after?: KeyOf<S> } } {
  const limit = query.limit ?? DEFAULT_LIMIT
  if (query.after === undefined) return { position: query.offset ?? 0, page: { limit, offset: query.offset ?? 0 } }
  if ((query.offset ?? 0) !== 0) throw invalidParameter('offset', `offset cannot be combined with after: after already says where the page starts (got offset ${query.offset ?? 0})`)
  const { position, key } = readCursor(scope, query.after, shape)
  return { position, page: { limit, offset: 0, after: key } }
}

const clip = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text)
