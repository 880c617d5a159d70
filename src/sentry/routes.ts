import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { byteSize } from '../util/limits.ts'
import { MAX_REQUEST_INFLATED_BYTES } from '../contract/limits.ts'
import { SENTRY_HEADER_PEEK_BYTES, SENTRY_MAX_BODY_BYTES, SENTRY_MAX_ENVELOPE_BYTES } from './limits.ts'
import { AppError } from '../errors.ts'
import { sentryErrorHeader } from '../http/error-handler.ts'
import { CorruptData, inflate, InflateBudget, inflateFirstLine, type Compression } from '../http/inflate.ts'
import { normalizeIp } from '../geo/country.ts'
import { sourceMapMapper } from '../issues/index.ts'
import { projectForDsn, type ProjectContext } from '../projects/service.ts'
import { ref } from '../util/schema.ts'
import { EnvelopeError, jsonObject, parseEnvelope, type Envelope } from './envelope.ts'
import { SentryAnswer, sentryErrors, SentryParams, SentryQuery } from './schema.ts'
import { ingestEnvelope, quotaEvents } from './service.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route a Sentry SDK posts to: the error handler answers it as Sentry would (429, never a 5xx). */
    sentry?: boolean
  }
}

/** Request headers a browser SDK may send cross-origin (Relay's list), and the answer headers it must be able to read. */
const ALLOWED_HEADERS = 'x-sentry-auth, x-requested-with, origin, referer, accept, content-type, content-encoding, authentication, authorization, sentry-trace, baggage'
const EXPOSED_HEADERS = 'x-sentry-error, x-sentry-rate-limits, retry-after'

/**
 * Ingest from an unmodified Sentry SDK (docs/sentry.md): the DSN's envelope endpoint and the legacy store
 * endpoint, with and without the trailing slash. Bodies are taken as bytes, whatever their Content-Type (the
 * SDK sends text/plain, none at all for binary replays, or application/x-sentry-envelope through a tunnel), and
 * inflated here: Fastify does not read Content-Encoding.
 */
export const sentryRoutes: FastifyPluginCallbackTypebox = (app, _options, done) => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: SENTRY_MAX_BODY_BYTES }, (_request, body, done) => { done(null, body) })
  app.addHook('onRequest', async (request, reply) => {
    // A body without a Content-Type (a compressed replay) would otherwise be refused before the catch-all parser.
    if (request.headers['content-type'] === undefined) request.headers['content-type'] = 'application/octet-stream'
    // CORS on every answer, errors included: a browser hides an answer without it, and the SDK then sees a network error.
    void reply.header('Access-Control-Allow-Origin', '*').header('Access-Control-Expose-Headers', EXPOSED_HEADERS)
  })

  app.addHook('onRequest', app.ingestLimits.early((request) => {
    const typed = request as FastifyRequest<{ Params: { projectId: string }; Querystring: { sentry_key?: string } }>
    return sentryProject(typed, Number(typed.params.projectId), sentryKey(typed), {}).catch(() => null)
  }))

  for (const kind of ['envelope', 'store'] as const) {
    for (const url of [`/api/:projectId/${kind}/`, `/api/:projectId/${kind}`]) {
      app.options(url, { schema: { hide: true } }, (_request, reply) => reply.code(204)
        .header('Access-Control-Allow-Methods', 'POST').header('Access-Control-Allow-Headers', ALLOWED_HEADERS)
        .header('Access-Control-Max-Age', '3600').send())
      app.post(url, {
        bodyLimit: SENTRY_MAX_BODY_BYTES,
        config: { sentry: true },
        schema: {
          ...(url.endsWith('/') ? {} : { hide: true }),
          operationId: kind === 'envelope' ? 'sentryEnvelope' : 'sentryStore',
          tags: ['sentry'],
          summary: kind === 'envelope' ? 'Store a Sentry envelope (errors, replays, feedback)' : 'Store one Sentry event (the legacy store endpoint)',
          description: `For an unmodified Sentry SDK given the project's DSN (docs/sentry.md). Authenticate with the DSN key: query \`sentry_key\`, `
            + 'the `X-Sentry-Auth: Sentry sentry_key=…` header, or (through a tunnel) the envelope header\'s `dsn`. Any Content-Type; '
            + `Content-Encoding gzip, deflate or br; at most ${byteSize(SENTRY_MAX_BODY_BYTES)} as sent and ${byteSize(SENTRY_MAX_ENVELOPE_BYTES)} `
            + `inflated; the body and its replay segments together at most ${byteSize(MAX_REQUEST_INFLATED_BYTES)} inflated (413 beyond, storing nothing). `
            + 'The key is checked before the body is inflated. A 200 means every item kept is on disk; a resent envelope stores nothing twice.',
          security: [{ sentryKeyQuery: [] }, { sentryAuthHeader: [] }],
          params: SentryParams,
          querystring: SentryQuery,
          response: { 200: ref(SentryAnswer), ...sentryErrors },
        },
      }, async (request, reply) => {
        const body = (request.body as Buffer | undefined) ?? Buffer.alloc(0)
        const compression = compressionOf(body, request.headers['content-encoding'])
        // Authenticated before the body is inflated, so a wrong key costs no inflation: only a tunnel's key (the
        // envelope header's dsn) needs the first line read, and only that is inflated for it.
        const key = sentryKey(request)
        const head = key === undefined && kind === 'envelope' ? await envelopeHead(body, compression) : {}
        const projectId = Number(request.params.projectId)
        const project = await sentryProject(request, projectId, key, head)
        const budget = new InflateBudget(MAX_REQUEST_INFLATED_BYTES)
        const raw = compression === null ? body : await inflateBody(body, compression, budget)
        const envelope = kind === 'store' ? storeEnvelope(raw) : readEnvelope(raw)
        // A key from the query or a header was checked before the header was read: its dsn must still be this project's.
        const dsn = dsnParts(envelope.header.dsn)
        if (dsn !== null && dsn.projectId !== projectId) throw wrongProject(key ?? dsn.key, projectId)
        const result = await app.ingestLimits.admit(request, project, quotaEvents(envelope), () => ingestEnvelope({
          db: app.db, writer: app.writer, geo: app.geo, recording: app.recordings, ipStorage: app.config.ipStorage,
          mapFrames: sourceMapMapper(app.sourceMaps, project.id), isOwnUrl,
        }, project, envelope, { ip: normalizeIp(request.ip), userAgent: request.headers['user-agent'] || null, budget }, Date.now()))
        if (envelope.stopped !== null) void reply.header('X-Sentry-Error', sentryErrorHeader(envelope.stopped))
        return { ...result, ...(envelope.stopped !== null && { stopped: envelope.stopped }) }
      })
    }
  }
  done()
}


/**
 * The compression of the body by its Content-Encoding, or null when it is none (an empty or `UTF-8` encoding, which
 * old SDKs send). HTTP's deflate is zlib-wrapped; some clients send it raw, which a zlib stream's first byte tells.
 */
function compressionOf(body: Buffer, encoding: string | undefined): Compression | null {
  const name = (encoding ?? '').trim().toLowerCase()
  if (name === '' || name === 'identity' || name === 'utf-8' || name === 'utf8') return null
  if (name === 'gzip' || name === 'x-gzip') return 'gzip'
  if (name === 'br') return 'br'
  if (name === 'deflate') return ((body[0] ?? 0) & 0x0f) === 8 ? 'deflate' : 'deflate-raw'
  throw new AppError(400, 'invalid_envelope', `Content-Encoding "${name}" is not supported: send gzip, deflate, br, or none`)
}

/** The body inflated by its Content-Encoding, within SENTRY_MAX_ENVELOPE_BYTES and the request's budget. */
async function inflateBody(body: Buffer, compression: Compression, budget: InflateBudget): Promise<Buffer> {
  try {
    return await inflate(body, compression, { maxBytes: SENTRY_MAX_ENVELOPE_BYTES, budget, what: 'The envelope' })
  } catch (error) {
    if (error instanceof CorruptData) throw new AppError(400, 'invalid_envelope', `The body does not inflate as ${compression} (its Content-Encoding)`)
    throw error
  }
}

/** The envelope's header (its first line, at most SENTRY_HEADER_PEEK_BYTES of it inflated), or {} when it is no JSON object. */
async function envelopeHead(body: Buffer, compression: Compression | null): Promise<Record<string, unknown>> {
  let line: Buffer
  if (compression === null) {
    const newline = body.indexOf(0x0a)
    line = body.subarray(0, newline < 0 ? body.length : newline)
  } else {
    try {
      line = await inflateFirstLine(body, compression, SENTRY_HEADER_PEEK_BYTES)
    } catch (error) {
      if (error instanceof CorruptData) throw new AppError(400, 'invalid_envelope', `The body does not inflate as ${compression} (its Content-Encoding)`)
      throw error
    }
  }
  return jsonObject(line) ?? {}
}

function readEnvelope(raw: Buffer): Envelope {
  try {
    return parseEnvelope(raw)
  } catch (error) {
    if (error instanceof EnvelopeError) throw new AppError(400, 'invalid_envelope', error.message)
    throw error
  }
}

/** The legacy store endpoint's body, one event, as the envelope of that event. */
const storeEnvelope = (raw: Buffer): Envelope => ({ header: {}, items: [{ type: 'event', header: { type: 'event' }, payload: raw }], stopped: null })

/** The DSN key the request carries outside its body: the `sentry_key` query parameter (browser SDKs) or the X-Sentry-Auth header (server SDKs). */
function sentryKey(request: FastifyRequest<{ Querystring: { sentry_key?: string } }>): string | undefined {
  const auth = request.headers['x-sentry-auth'] ?? request.headers.authorization
  const fromHeader = /sentry_key=([^,\s]+)/.exec(Array.isArray(auth) ? auth.join(',') : auth ?? '')?.[1]
  return request.query.sentry_key ?? fromHeader
}

/**
 * The project of the path's id and the DSN key: `key` (sentryKey), else the envelope header's `dsn` (a tunnel
 * forwards the body alone). No key: 401; a key and id that name no project, or a `dsn` for another project: 403,
 * as Sentry answers.
 */
async function sentryProject(
  request: FastifyRequest, projectId: number, key: string | undefined, header: Record<string, unknown>,
): Promise<ProjectContext> {
  const dsn = dsnParts(header.dsn)
  const found = key ?? dsn?.key
  if (found === undefined || found === '') {
    throw new AppError(401, 'missing_sentry_key', 'Send the DSN key as query parameter sentry_key, in an X-Sentry-Auth header, or as the envelope header\'s dsn (Sentry SDKs do this themselves)')
  }
  const project = dsn !== null && dsn.projectId !== projectId ? null : await projectForDsn(request.server.db, projectId, found)
  if (!project) throw wrongProject(found, projectId)
  return project
}

const wrongProject = (key: string, projectId: number): AppError => new AppError(403, 'invalid_sentry_key',
  `No project has this DSN (key ${key.slice(0, 8)}…, project id ${projectId}): copy the DSN from the dashboard's API tab or \`sessionwatch project list\``)

/** The key and project id of a DSN, or null when it is not one. */
function dsnParts(value: unknown): { key: string; projectId: number } | null {
  if (typeof value !== 'string') return null
  try {
    const url = new URL(value)
    const id = /(\d+)[^/]*$/.exec(url.pathname)?.[1]
    return url.username === '' || id === undefined ? null : { key: decodeURIComponent(url.username), projectId: Number(id) }
  } catch {
    return null
  }
}

/** This server's ingest and Sentry ingest URLs: the requests an SDK makes, not the page. */
const isOwnUrl = (url: string): boolean => /\/ingest\/v1\/batch|\/api\/\d+\/(envelope|store)\/?|[?&]sentry_key=/.test(url)
