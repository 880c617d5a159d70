import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { byteSize } from '../util/limits.ts'
import { AppError, type ErrorCode, RetryLater, SENTRY_RETRY_SECONDS, STORAGE_FULL_RETRY_SECONDS, UNAVAILABLE_RETRY_SECONDS } from '../errors.ts'
import type { DatabaseFault } from '../db/errors.ts'
import { patternHelp, type ErrorBody } from '../util/schema.ts'

interface ValidationIssue {
  instancePath: string
  schemaPath: string
  keyword: string
  params: Record<string, unknown>
  message?: string
}

type PropertySchema = {
  type?: string; minimum?: number; maximum?: number; minLength?: number; maxLength?: number; format?: string; pattern?: string; description?: string
}


/** Fastify's own client errors, mapped onto our stable codes. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_body',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_body',
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: 'invalid_body',
}

/** One error handler for the whole service: every error leaves as JSON with a stable code. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // An outage or a full disk is logged once per episode, with its cause, by the database status.
    const fault = request.server.databaseStatus.failed(error)
    const body = toErrorBody(error, request, fault)
    if (body.statusCode >= 500 && fault === null) {
      request.log.error({ err: error, method: request.method, url: request.url, query: request.query }, 'request failed')
    }
    const retry = error instanceof RetryLater ? error : null
    if (retry) void reply.header('Retry-After', String(retry.retryAfterSeconds))
    send(reply, request.routeOptions.config.sentry === true ? asSentryAnswer(reply, body, retry) : body)
  })
  app.setNotFoundHandler((request, reply) => { send(reply, noRoute(request)) })
}

const noRoute = (request: FastifyRequest): ErrorBody => errorBody(404, 'route_not_found',
  `No route ${request.method} ${request.url.split('?')[0] ?? ''}. The API is described at /api/v1/openapi.json`)

/** What Node's HTTP parser refused, as one of our codes; anything else it refuses is malformed. */
const PARSER_ERRORS: Record<string, [number, ErrorCode, string]> = {
  HPE_INVALID_METHOD: [404, 'route_not_found', 'No route for this method. The API is described at /api/v1/openapi.json'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'The request did not arrive in full in time; send it again.'],
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'The request line and headers are larger than allowed (16 KiB).'],
}

/**
 * Fastify's clientErrorHandler: Node's HTTP parser refuses some requests before any route is looked
 * up (a method it does not know, a head over 16 KiB, broken HTTP). They get the JSON error body
 * every other error gets: an unknown method the 404 of any other missing route.
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, code, message] = PARSER_ERRORS[error.code ?? '']
    ?? [400, 'malformed_request', 'The request is not well-formed HTTP.']
  this.log.trace({ err: error }, 'client error')
  const json = JSON.stringify(errorBody(status, code, message))
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Length: ${Buffer.byteLength(json)}\r\n`
      + `Content-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${json}`)
  }
  socket.destroy(error)
}

/**
 * Fastify's frameworkErrors: a path with a bad `%` escape (`/api/v1/sessions/%zz`) cannot be routed,
 * so it fails before any route, its key check or the error handler.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  // Sent before any hook, so without the onRequest hook's header.
  void reply.header('X-Content-Type-Options', 'nosniff')
  send(reply, error.code === 'FST_ERR_BAD_URL'
    ? errorBody(400, 'malformed_request', 'The path cannot be decoded: a % must start an escape of two hex digits (%2F).')
    : errorBody(400, 'malformed_request', error.message))
}

function send(reply: FastifyReply, body: ErrorBody): void {
  if (body.statusCode === 503) {
    void reply.header('Retry-After', String(body.code === 'storage_full' ? STORAGE_FULL_RETRY_SECONDS : UNAVAILABLE_RETRY_SECONDS))
  }
  if (body.code === 'missing_api_key') void reply.header('WWW-Authenticate', 'Bearer realm="sessionwatch"')
  if (body.code === 'invalid_api_key') {
    void reply.header('WWW-Authenticate', 'Bearer realm="sessionwatch", error="invalid_token"')
  }
  void reply.code(body.statusCode).type('application/json; charset=utf-8').send(body)
}

/**
 * An error as a Sentry SDK needs it. It counts a 5xx as lost data and, for a replay, stops recording: whatever
 * keeps the service from storing now (busy, database down, disk full) is a 429 that the SDK waits out for every
 * category (X-Sentry-Rate-Limits) and then resumes; so is a project over its rate limit or quota (`retry`), for the
 * time it says. Every refusal is explained in X-Sentry-Error, as Relay does.
 */
function asSentryAnswer(reply: FastifyReply, body: ErrorBody, retry: RetryLater | null): ErrorBody {
  const answer = body.statusCode < 500 ? body : errorBody(429, 'rate_limited',
    `Nothing of this envelope was stored: ${body.message} Send it again after ${SENTRY_RETRY_SECONDS} seconds.`)
  if (answer.statusCode === 429) {
    // `<seconds>:<categories>:<scope>:<reason>`: no categories is every category; SDKs read the first two fields.
    const [seconds, scope, reason] = retry ? [retry.retryAfterSeconds, 'project', retry.reason] : [SENTRY_RETRY_SECONDS, 'organization', 'service_unavailable']
    void reply.header('Retry-After', String(seconds)).header('X-Sentry-Rate-Limits', `${seconds}::${scope}:${reason}`)
  }
  void reply.header('X-Sentry-Error', sentryErrorHeader(answer.message))
  return answer
}

/** A message as an X-Sentry-Error value: printable ASCII only, as a header must be, and short. */
export const sentryErrorHeader = (message: string): string => message.replace(/[^\x20-\x7e]/g, '?').slice(0, 512)

const errorBody = (statusCode: number, code: ErrorCode, message: string, parameter?: string): ErrorBody => ({
  statusCode, error: STATUS_CODES[statusCode] ?? 'Error', code, message, ...(parameter === undefined ? {} : { parameter }),
})


export function toErrorBody(error: FastifyError, request: FastifyRequest, fault: DatabaseFault | null): ErrorBody {
  if (error instanceof AppError) return errorBody(error.statusCode, error.code, error.message, error.parameter)
  // A missing route stays a missing route, whatever else is wrong with the request: a QUERY or
  // POST to no route fails parsing its body there, which is no reason to blame the body.
  if (request.is404) return noRoute(request)
  if (error.validation && error.validation.length > 0) return validationBody(error.validation, error.validationContext, request)
  if (fault === 'full') {
    return errorBody(503, 'storage_full', 'The database\'s disk is full, so nothing of this request was stored. '
      + `Retry after the Retry-After seconds (${STORAGE_FULL_RETRY_SECONDS}); the operator must free disk space.`)
  }
  if (fault !== null) {
    return errorBody(503, 'service_unavailable', 'The database is unreachable right now; retry in a few seconds.')
  }
  const mapped = FASTIFY_CODES[error.code]
  if (mapped) return errorBody(error.statusCode ?? 400, mapped, clientMessage(error, request))
  if (error instanceof SyntaxError || (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)) {
    return errorBody(error.statusCode ?? 400, 'invalid_body', clientMessage(error, request))
  }
  return errorBody(500, 'internal_error', 'The server failed to handle this request; it has been logged. Try again later.')
}

function clientMessage(error: FastifyError, request: FastifyRequest): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      // Each route that takes a body declares its own limit (an ingest batch, a source map).
      return `The request body is larger than allowed (${byteSize(request.routeOptions.bodyLimit)} for ${request.method} ${request.routeOptions.url ?? 'this route'})`
    }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return 'Send the body as application/json (or text/plain holding JSON)'
    default: return error.message
  }
}

function validationBody(issues: readonly ValidationIssue[], context: string | undefined, request: FastifyRequest): ErrorBody {
  const issue = issues[0] as ValidationIssue
  const missing = typeof issue.params.missingProperty === 'string' ? issue.params.missingProperty : undefined
  const path = issue.instancePath.replace(/^\//, '').split('/').filter(Boolean)
  if (missing !== undefined) path.push(missing)
  if (context === 'params') return paramsNotFound(path[0] ?? 'id', request)
  if (context === 'querystring') {
    const name = path[0] ?? 'query'
    const raw = new URL(request.url, 'http://localhost').searchParams.getAll(name)
    const got = raw.length > 0 ? ` (got ${raw.map((v) => JSON.stringify(v)).join(', ')})` : ''
    const schema = querySchema(request, context)?.[name]
    if (missing !== undefined) return errorBody(400, 'invalid_parameter', `${name} is required: ${schema?.description ?? 'see the API reference'}`, name)
    return errorBody(400, 'invalid_parameter', `${name} must be ${describeAllowed(schema, issue)}${got}`, name)
  }
  const field = fieldName(path)
  // A `then` of "if type is X": say the rule, "events[0] (ERROR) needs message".
  const type = issue.schemaPath.includes('/then/') ? typeAt(request.body, path.slice(0, -1)) : undefined
  if (type !== undefined) return errorBody(400, 'invalid_body', `${fieldName(path.slice(0, -1))} (${type}) needs ${path.at(-1) ?? ''}`, field)
  const help = (typeof issue.params.pattern === 'string' ? patternHelp(issue.params.pattern) : undefined)
    // Ajv says "must be equal to one of the allowed values" without naming them.
    ?? (Array.isArray(issue.params.allowedValues) ? `one of ${issue.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}` : undefined)
  const what = missing !== undefined ? 'is required' : help !== undefined ? `must be ${help}` : (issue.message ?? 'is invalid')
  return errorBody(400, 'invalid_body', `${field || 'The body'} ${what}`, field || undefined)
}

/**
 * Path parameters are ids, and their schemas bound only what could exist (a length): an id beyond
 * the bound names nothing, so it answers the 404 of any unknown id rather than a 400.
 */
function paramsNotFound(name: string, request: FastifyRequest): ErrorBody {
  const raw = (request.params as Record<string, unknown> | undefined)?.[name]
  const value = typeof raw === 'string' ? raw : ''
  const shown = value.length > 100 ? `${value.slice(0, 100)}…` : value
  return errorBody(404, 'not_found', `No ${name} "${shown}": it is longer than any that exists`)
}

const fieldName = (path: readonly string[]): string =>
  path.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '')

/** The `type` of the object at `path` in a body, when it has a string one. */
function typeAt(body: unknown, path: readonly string[]): string | undefined {
  const target = path.reduce<unknown>((value, part) => (value as Record<string, unknown> | null | undefined)?.[part], body)
  const type = (target as { type?: unknown } | null | undefined)?.type
  return typeof type === 'string' ? type : undefined
}

function querySchema(request: FastifyRequest, context: string): Record<string, PropertySchema> | undefined {
  const schema = request.routeOptions.schema as Record<string, { properties?: Record<string, PropertySchema> }> | undefined
  return schema?.[context]?.properties
}

/** Says in words what a parameter accepts, from the same schema that validated it. */
export function describeAllowed(schema: PropertySchema | undefined, issue?: ValidationIssue): string {
  if (schema?.type === 'integer') {
    const { minimum: min, maximum: max } = schema
    if (min !== undefined && max !== undefined) return `an integer from ${min} to ${max}`
    if (min !== undefined) return `an integer, ${min} or more`
    return 'an integer'
  }
  if (schema?.format === 'date') return 'a calendar date YYYY-MM-DD'
  if (schema?.type === 'string' && schema.maxLength !== undefined && (issue?.keyword === 'maxLength' || issue?.keyword === 'minLength')) {
    return `${schema.minLength ?? 0} to ${schema.maxLength} characters`
  }
  const pattern = schema?.pattern ?? (typeof issue?.params.pattern === 'string' ? issue.params.pattern : undefined)
  const help = pattern === undefined ? undefined : patternHelp(pattern)
  if (help !== undefined) return help
  return issue?.message ?? 'a valid value'
}
