import cors from '@fastify/cors'
import type { FastifyPluginAsyncTypebox, FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { MAX_BATCH_BYTES, MAX_EVENTS_PER_BATCH } from '../contract/limits.ts'
import { textLimitsProse } from './limits.ts'
import { AppError, invalidBody } from '../errors.ts'
import { normalizeIp } from '../geo/country.ts'
import { ipStorageOf, projectForIngestKey, type ProjectContext } from '../projects/service.ts'
import { errorResponses, ref } from '../util/schema.ts'
import { IngestBody, IngestQuery, IngestResponse, RecordingChunkQuery } from '../contract/index.ts'
import { ingestBatch, visitorOf } from './service.ts'
import { sourceMapMapper } from '../issues/index.ts'

/** Ingest from the browser SDK, under /ingest/v1. Cross-origin by design: the ingest key is public and write-only. */
export const ingestRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(cors, {
    origin: '*', methods: ['POST'], allowedHeaders: ['Content-Type', 'X-Ingest-Key'], maxAge: 86_400,
  })
  app.addHook('onRequest', app.ingestLimits.early((request) => ingestProject(request as FastifyRequest<{ Querystring: { key?: string } }>).catch(() => null)))
  // navigator.sendBeacon posts text/plain, which needs no preflight: the last batch of a closing tab gets through.
  // Fastify's own JSON parser, so a text/plain body is refused for what an application/json one is (`__proto__` keys).
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: MAX_BATCH_BYTES }, (req, body, done) => {
    void parseJson(req, String(body), (error, value) => {
      if (error) done(invalidBody('The body must be JSON (sent as application/json or text/plain) without __proto__ or constructor keys'), undefined)
      else done(null, value)
    })
  })

  app.post('/batch', {
    bodyLimit: MAX_BATCH_BYTES,
    schema: {
      operationId: 'ingestBatch',
      tags: ['ingest'],
      summary: 'Store a batch of events of one visit',
      description: 'Used by the browser SDK. Authenticate with the public ingest key: header `X-Ingest-Key`, query `key`, '
        + 'or body field `key` (for `navigator.sendBeacon`, which posts `text/plain`; the body is JSON either way). '
        + 'The API key is refused here. A 200 means the batch is committed to disk. Retrying a batch with the same '
        + 'batchId (or event ids) stores nothing twice. The server sets ip (the connection, or X-Forwarded-For when '
        + 'TRUST_PROXY says so, stored as the project\'s IP storage says: full, truncated or none), country (from the full address), '
        + 'userAgent, utm and the counters. Secrets are masked in every text field and in page: tokens and passwords in URLs, '
        + 'fragments, bodies and messages, Bearer and Basic credentials, card numbers and the project\'s own maskFields '
        + '(docs/sdk.md lists them). Text beyond its limit is cut and ends with '
        + `"…[truncated N chars]"; limits: ${textLimitsProse()} `
        + `characters; at most ${MAX_EVENTS_PER_BATCH} events and ${MAX_BATCH_BYTES} bytes per batch. Recording chunks (\`recording\`) are `
        + 'checked to hold rrweb events; one over RECORDING_MAX_CHUNK_BYTES, or past the session\'s '
        + 'RECORDING_MAX_SESSION_BYTES, is dropped and counted rather than refused.',
      security: [{ ingestKeyHeader: [] }],
      querystring: IngestQuery,
      consumes: ['application/json', 'text/plain'],
      body: ref(IngestBody),
      response: { 200: ref(IngestResponse), ...errorResponses(400, 401, 413, 415, 429, 503) },
    },
  }, async (request) => {
    const project = await ingestProject(request, request.body.key)
    const visitor = visitorOf(normalizeIp(request.ip), request.headers['user-agent'] || null, app.geo, ipStorageOf(project, app.config.ipStorage))
    return app.ingestLimits.admit(request, project, request.body.events.length, () => ingestBatch(app.db, app.writer, project, request.body, visitor,
      app.recordings, Date.now(), sourceMapMapper(app.sourceMaps, project.id)))
  })

  await app.register(rawChunkRoute)
}

/**
 * A chunk as raw bytes: a third smaller than base64 in JSON, and nothing for the visitor's page to encode. Any
 * Content-Type, or none, which is what keeps a cross-origin fetch or beacon free of a CORS preflight; the parser
 * that takes any bytes is this route's alone.
 */
const rawChunkRoute: FastifyPluginCallbackTypebox = (raw, _opts, done) => {
  raw.addHook('onRequest', (request, _reply, next) => {
    if (request.headers['content-type'] === undefined) request.headers['content-type'] = 'application/octet-stream'
    next()
  })
  raw.removeAllContentTypeParsers()
  raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BATCH_BYTES }, (_request, body, parsed) => { parsed(null, body) })
  raw.post('/recording', {
    bodyLimit: MAX_BATCH_BYTES,
    schema: {
      operationId: 'ingestRecordingChunk',
      tags: ['ingest'],
      summary: 'Store one screen recording chunk, sent as its gzip bytes',
      description: 'Used by the browser SDK\'s recorder: the body is the gzip-compressed JSON array of rrweb events itself (or the '
        + 'plain JSON array, which the service compresses: a closing page\'s last events), with any Content-Type or none (so neither fetch nor sendBeacon needs a CORS preflight); the query says what a batch\'s '
        + 'fields would (`sessionKey`, `chunk` for the chunk id, `sentAt`, `page`, `mode`). Stored exactly as a batch\'s `recording` '
        + 'entry would be: checked to hold rrweb events, dropped and counted over RECORDING_MAX_CHUNK_BYTES or past the '
        + 'session\'s RECORDING_MAX_SESSION_BYTES, stored once per chunk id however often it is retried.',
      security: [{ ingestKeyHeader: [] }],
      querystring: RecordingChunkQuery,
      consumes: ['application/octet-stream'],
      response: { 200: ref(IngestResponse), ...errorResponses(400, 401, 413, 429, 503) },
    },
  }, async (request) => {
    const project = await ingestProject(request)
    const q = request.query
    const visitor = visitorOf(normalizeIp(request.ip), request.headers['user-agent'] || null, raw.geo, ipStorageOf(project, raw.config.ipStorage))
    // A chunk holds no events: it counts against the rate, not the quota, and is refused once the quota is spent.
    return raw.ingestLimits.admit(request, project, 0, () => ingestBatch(raw.db, raw.writer, project, {
      sessionKey: q.sessionKey, batchId: q.chunk, events: [], recording: [{ id: q.chunk, data: request.body as Buffer<ArrayBuffer>, ...(q.mode !== undefined && { mode: q.mode }) }],
      ...(q.sentAt !== undefined && { sentAt: q.sentAt }), ...(q.page !== undefined && { page: q.page }),
    }, visitor, raw.recordings, Date.now()))
  })
  done()
}

async function ingestProject(request: FastifyRequest<{ Querystring: { key?: string } }>, bodyKey?: string): Promise<ProjectContext> {
  const header = request.headers['x-ingest-key']
  const key = (Array.isArray(header) ? header[0] : header) ?? request.query.key ?? bodyKey
  if (!key) {
    throw new AppError(401, 'missing_ingest_key',
      'Send the project ingest key as header X-Ingest-Key, query parameter key, or body field key')
  }
  const project = await projectForIngestKey(request.server.db, key)
  if (!project) {
    const secret = key.startsWith('sw_api_') ? 'API key, which only reads' : key.startsWith('sw_upl_') ? 'upload key, which only uploads source maps' : null
    const hint = secret === null ? '' : ` This is the secret ${secret}; ingest takes the ingest key (sw_ing_…).`
    throw new AppError(401, 'invalid_ingest_key', `The ingest key is not valid.${hint}`)
  }
  return project
}
