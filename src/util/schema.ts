import Type, { type Static } from 'typebox'
import { DEFAULT_LIMIT } from '../../common/limits.ts'
import { MAX_CURSOR_LENGTH, MAX_LIMIT, MAX_OFFSET } from './limits.ts'
import { ERROR_CODES, type ErrorCode } from '../errors.ts'
import { INSTANT_HELP, INSTANT_PATTERN } from './time.ts'

/** The body of every error answer. */
export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer({ description: 'The HTTP status, repeated for logs that keep only the body.' }),
    error: Type.String({ description: 'The HTTP status text.', examples: ['Bad Request'] }),
    code: Type.Unsafe<ErrorCode>({
      type: 'string',
      enum: ERROR_CODES.map((c) => c.code),
      description: `Stable, machine-readable reason; branch on it. ${ERROR_CODES.map((c) => `\`${c.code}\` (${c.status}): ${c.meaning}`).join('; ')}.`,
      examples: ['invalid_parameter'],
    }),
    message: Type.String({
      description: 'What went wrong and what is allowed, for people.',
      examples: [`limit must be an integer from 1 to ${MAX_LIMIT} (got "0")`],
    }),
    parameter: Type.Optional(Type.String({ description: 'The query parameter or body field at fault, when there is one.' })),
  },
  { $id: 'ApiError', title: 'ApiError', additionalProperties: false },
)
export type ErrorBody = Static<typeof ErrorBody>

/**
 * `T | null` as a type array (`{"type": ["string", "null"]}`), not `anyOf`: the same JSON Schema
 * meaning (and OpenAPI 3.1 form), but fast-json-stringify serializes a type array directly, while
 * for `anyOf` it validates every value against each branch first — 6 validations per event.
 */
export const Nullable = <T extends Type.TSchema & { type: string; enum?: readonly unknown[] }>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'], ...(schema.enum && { enum: [...schema.enum, null] }) })

/** A string that is one of `values`, typed as their union: one `enum`, whose 400 lists what is allowed. */
export const StringEnum = <const V extends readonly string[]>(values: V, options: { description?: string } = {}) =>
  Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options }) as Type.TUnsafe<V[number]> & { type: 'string'; enum: V }

/**
 * A `$ref` to a schema registered by $id (app.addSchema), typed as that schema: the OpenAPI document
 * names it as a component, and the route keeps its TypeScript type.
 */
export const ref = <T extends Type.TSchema>(schema: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<Static<T>>({ $ref: (schema as { $id?: string }).$id, ...options })

/** Response headers of error answers, documented in the OpenAPI document (@fastify/swagger reads `headers`). */
const RETRY_AFTER = { 'Retry-After': { type: 'integer', description: 'Seconds to wait before retrying.' } }
const ERROR_HEADERS: Partial<Record<number, Record<string, { type: string; description: string }>>> = {
  401: { 'WWW-Authenticate': { type: 'string', description: 'On the read API: `Bearer realm="sessionwatch"`, plus `error="invalid_token"` for a wrong key.' } },
  429: RETRY_AFTER,
  503: RETRY_AFTER,
}

/** Response schemas for error statuses, keyed by status, for route definitions. */
export const errorResponses = (...statuses: (400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 503)[]) =>
  Object.fromEntries(statuses.map((s) => [s, ref(ErrorBody, { description: ERROR_TEXT[s], ...(ERROR_HEADERS[s] && { headers: ERROR_HEADERS[s] }) })]))

export const ERROR_TEXT: Record<number, string> = {
  400: 'A parameter or the body is invalid; `parameter` names it and `message` says what is allowed.',
  401: 'The key is missing or wrong (read API: with a `WWW-Authenticate: Bearer` header).',
  403: 'The request lacks the dashboard\'s X-Sessionwatch header (cross-site request protection).',
  404: 'Not found: unknown, deleted, expired, or belonging to another project (never told apart).',
  409: 'The request conflicts with stored data.',
  413: 'The request is larger than allowed.',
  415: 'The Content-Type is not accepted.',
  431: 'The request line and headers are larger than allowed (16 KiB).',
  429: 'The project is over its ingest rate limit or has spent its daily event quota (`rate_limited`): nothing was stored; '
    + 'retry after the `Retry-After` seconds (for the quota, the next UTC midnight).',
  503: 'The database is unreachable, its disk is full, ingest is over capacity, or the most source map uploads a process takes at once are running; retry after the `Retry-After` seconds.',
}

/** OpenAPI security of the read API: the project API key as a Bearer token or in X-Api-Key. */
export const API_KEY_SECURITY: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }]
/** OpenAPI security of the source map upload: the project upload key, likewise as a Bearer token or in X-Api-Key. */
export const UPLOAD_KEY_SECURITY: Record<string, string[]>[] = [{ uploadKeyBearer: [] }, { uploadKeyHeader: [] }]

/** `from` and `to` of a list: a period by `field`, in the forms parseRange reads. */
export const periodQuery = (field: string) => ({
  from: Type.Optional(Type.String({
    pattern: INSTANT_PATTERN,
    description: 'ISO 8601 date-time with Z or an offset, or a bare date (its UTC midnight). '
      + `Start of the period by ${field}, inclusive. Must not be later than to.`,
    examples: ['2026-11-20T00:00:00Z'],
  })),
  to: Type.Optional(Type.String({
    pattern: INSTANT_PATTERN,
    description: `ISO 8601 date-time with Z or an offset, or a bare date (its UTC midnight). End of the period by ${field}, exclusive.`,
    examples: ['2026-11-21T00:00:00+03:00'],
  })),
})

/**
 * What every cursor looks like (cursor.ts makeCursor): base64url of a JSON array that opens with the version, 1, and
 * the scope's quote, `[1,"`, which encode to these five characters. The `after` parameter's pattern, so the document
 * says as much of what the server takes as a pattern can (which list a cursor belongs to, it cannot).
 */
export const CURSOR_PATTERN = '^WzEsI[A-Za-z0-9_-]+$'

/** `limit`, `offset` and `after` of a list of `noun`, as every list of the API pages. */
export const pageQuery = (noun: string) => ({
  limit: Type.Optional(Type.Integer({
    minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: `Number of ${noun} to return, 1 to ${MAX_LIMIT}.`,
  })),
  offset: Type.Optional(Type.Integer({
    minimum: 0, maximum: MAX_OFFSET, default: 0,
    description: `Number of ${noun} to skip, 0 to ${MAX_OFFSET} (2^53−1). A deep offset costs a walk over every ${noun.replace(/s$/, '')} it skips: `
      + 'to page through a whole list, follow `next` with `after` instead.',
  })),
  after: Type.Optional(Type.String({
    minLength: 1, maxLength: MAX_CURSOR_LENGTH, pattern: CURSOR_PATTERN,
    description: `Extension: the \`next\` cursor of the previous page; the answer is the page after it, at the cost of a first page however deep. `
      + 'Repeat the previous request\'s filters (limit may change); not combined with offset. Any value the server did not give '
      + 'for this list (with these filters) answers 400 invalid_parameter naming `after`.',
  })),
})

/** `total`, `limit` and `offset` of a list answer of `nouns` (one of them: `noun`), as every list of the API tells them. */
export const pageFields = (noun: string, nouns: string) => ({
  total: Type.Integer({ description: `${nouns[0]?.toUpperCase() ?? ''}${nouns.slice(1)} matching the filter in total, ignoring limit and offset.` }),
  limit: Type.Integer({ description: 'Limit applied.' }),
  offset: Type.Integer({ description: `Offset applied: the position of the first ${noun} of the page, also of a page after a cursor.` }),
})

/** `next` of a list answer: the cursor of the page after this one (the `after` parameter), null on the last page. */
export const nextField = (noun: string) => ({
  next: Nullable(Type.String({
    description: `Extension: pass it as \`after\` (with the same filters) for the page after this one; null when no ${noun} follow. `
      + `Paging by cursor lists none of the ${noun} twice; one that moves ahead of the cursor meanwhile (new activity) shows on a new first page.`,
  })),
})

/** What each described pattern means in words, for the error handler's messages (a message says what is allowed). */
const PATTERN_HELP = new Map<string, string>([[INSTANT_PATTERN, INSTANT_HELP]])

/** A pattern with the words that say what it allows: its schema stays the pattern, its 400 says the words. */
export function describedPattern(pattern: string, help: string): string {
  PATTERN_HELP.set(pattern, help)
  return pattern
}

/** The words for a pattern described with describedPattern, if any. */
export const patternHelp = (pattern: string): string | undefined => PATTERN_HELP.get(pattern)
