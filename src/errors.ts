import { byteSize } from './util/limits.ts'
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from './settings.ts'
import { SIGN_IN_MAX_CONCURRENT_CHECKS } from './dashboard/limits.ts'
import { SOURCEMAP_MAX_CONCURRENT_UPLOADS, MAX_SOURCEMAP_BYTES } from './sourcemaps/limits.ts'
import { MAX_BATCH_BYTES } from './contract/limits.ts'
import { PENDING_SIGN_IN_MS } from './sso/limits.ts'
import { SENTRY_MAX_BODY_BYTES, SENTRY_MAX_ENVELOPE_BYTES } from './sentry/limits.ts'

/** Seconds a Sentry SDK is told to wait (Retry-After) when the service cannot store now: busy, database down, disk full. */
export const SENTRY_RETRY_SECONDS = 60
/** Retry-After of a 503 for an unreachable database, a shutdown or a full ingest queue: such outages pass quickly. */
export const UNAVAILABLE_RETRY_SECONDS = 5
/** Retry-After of a 503 storage_full: a full disk takes an operator to mend, so clients wait longer between tries. */
export const STORAGE_FULL_RETRY_SECONDS = 30

/**
 * Every error the service answers with carries one of these stable codes. Scripts branch on
 * `code`; `message` is for people. This list is the one source: the ErrorCode type, the enum of
 * the OpenAPI error schema and its description come from it, and a test holds the table in
 * docs/api.md to it.
 */
export const ERROR_CODES = [
  { code: 'invalid_parameter', status: 400, meaning: 'a query parameter is invalid; `parameter` names it' },
  { code: 'malformed_request', status: 400, meaning: 'not well-formed HTTP, or a path that cannot be decoded (a bad `%` escape)' },
  { code: 'invalid_body', status: 400, meaning: 'a request body is invalid — an ingest batch, or a source map the message says what is wrong with (409: an import conflict); `parameter` names the field' },
  { code: 'invalid_envelope', status: 400, meaning: 'a Sentry envelope that cannot be read: its header, an item, or its Content-Encoding' },
  { code: 'missing_api_key', status: 401, meaning: 'read API without an API key, or source map upload without an upload key' },
  {
    code: 'invalid_api_key', status: 401,
    meaning: 'read API or source map upload with a wrong key, with more than one key, or with the other secret key (the API key only reads, the upload key only uploads)',
  },
  { code: 'missing_ingest_key', status: 401, meaning: 'ingest without an ingest key' },
  { code: 'invalid_ingest_key', status: 401, meaning: 'ingest with a wrong ingest key' },
  { code: 'missing_sentry_key', status: 401, meaning: 'a Sentry envelope without a DSN key (`sentry_key` query, `X-Sentry-Auth` header, or the envelope header\'s `dsn`)' },
  { code: 'not_signed_in', status: 401, meaning: 'dashboard API without a valid sign-in' },
  { code: 'invalid_password', status: 401, meaning: 'dashboard sign-in with a wrong password' },
  {
    code: 'sign_in_failed', status: 401,
    meaning: `single sign-on did not complete: the identity provider refused or answered an error, its code or token did not verify, or the sign-in was started over ${PENDING_SIGN_IN_MS / 60_000} minutes earlier; the message says which; start it again`,
  },
  { code: 'invalid_sentry_key', status: 403, meaning: 'a Sentry envelope whose DSN key and project id name no project (as Sentry answers, 403)' },
  { code: 'forbidden', status: 403, meaning: 'a dashboard request the signed-in person\'s role does not allow, or a dashboard change without the X-Sessionwatch header' },
  { code: 'not_found', status: 404, meaning: 'unknown, deleted, expired, or another project\'s session or chunk — never told apart' },
  { code: 'route_not_found', status: 404, meaning: 'no such route or method' },
  { code: 'conflict', status: 409, meaning: 'a person who already has an account, or a change that would leave no owner' },
  { code: 'public_replays_off', status: 409, meaning: 'a public replay link asked of a project whose admin has not turned public replay links on (`publicReplays`)' },
  {
    code: 'request_timeout', status: 408,
    meaning: `the request did not arrive in full in time: its head within \`HEADERS_TIMEOUT_MS\` (${DEFAULT_HEADERS_TIMEOUT_MS / 1000} s) or all of it within \`REQUEST_TIMEOUT_MS\` (${DEFAULT_REQUEST_TIMEOUT_MS / 1000} s) of its start; nothing of it is stored`,
  },
  { code: 'payload_too_large', status: 413, meaning: `an ingest body over ${byteSize(MAX_BATCH_BYTES)}, a source map over ${byteSize(MAX_SOURCEMAP_BYTES)}, a Sentry envelope over ${byteSize(SENTRY_MAX_BODY_BYTES)} as sent or ${byteSize(SENTRY_MAX_ENVELOPE_BYTES)} inflated, or an item of it over its limit; compressed data (a recording chunk, a Sentry body or replay segment) that inflates beyond its bounds, refusing the whole request` },
  { code: 'unsupported_media_type', status: 415, meaning: 'an ingest body neither application/json nor text/plain, or a source map upload with a Content-Encoding other than gzip' },
  { code: 'headers_too_large', status: 431, meaning: 'the request line and headers are over 16 KiB' },
  { code: 'too_many_requests', status: 429, meaning: `too many failed dashboard sign-ins from one address (or one browser that signed in before), or ${SIGN_IN_MAX_CONCURRENT_CHECKS} sign-ins being checked at once; retry after Retry-After` },
  {
    code: 'rate_limited', status: 429,
    meaning: 'ingest (our SDK or a Sentry SDK) of a project over its rate limit (`INGEST_RATE_LIMIT` or its own) or past its daily event '
      + 'quota: nothing of it was stored; retry after Retry-After (the rate: a second or two; the quota: the next UTC midnight). Also '
      + `a Sentry envelope that cannot be stored now (busy, database down, disk full): Sentry SDKs back off for Retry-After (${SENTRY_RETRY_SECONDS} s) rather than see a 5xx`,
  },
  { code: 'internal_error', status: 500, meaning: 'a bug; the details go to the log, not the answer' },
  { code: 'service_unavailable', status: 503, meaning: `the database or the recording store (RECORDINGS_URL) is unreachable, the service is shutting down, ingest is over capacity, or ${SOURCEMAP_MAX_CONCURRENT_UPLOADS} source map uploads are running on the process; retry after Retry-After (${UNAVAILABLE_RETRY_SECONDS} s)` },
  {
    code: 'storage_full', status: 503,
    meaning: `the database's disk is full: nothing of the request was stored; retry after Retry-After (${STORAGE_FULL_RETRY_SECONDS} s)`,
  },
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]['code']

/** A failure with an HTTP status, a stable code and a message a user can act on. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    /** The query parameter or body field at fault, when there is one. */
    readonly parameter?: string,
  ) {
    super(message)
    this.name = 'AppError'
  }
}

/**
 * A refusal that says when to try again: the answer carries `Retry-After: retryAfterSeconds`, and on the Sentry routes
 * `X-Sentry-Rate-Limits` with `reason` as its reason code, which Sentry SDKs obey.
 */
export class RetryLater extends AppError {
  constructor(code: ErrorCode, message: string, readonly retryAfterSeconds: number, readonly reason: string) {
    super(429, code, message)
    this.name = 'RetryLater'
  }
}

export const invalidParameter = (parameter: string, message: string): AppError =>
  new AppError(400, 'invalid_parameter', message, parameter)

export const invalidBody = (message: string, field?: string): AppError =>
  new AppError(400, 'invalid_body', message, field)

export const notFound = (message: string): AppError => new AppError(404, 'not_found', message)
