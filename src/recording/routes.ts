import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { MAX_CHUNK_ID_LENGTH, MAX_SESSION_ID_LENGTH } from '../../common/limits.ts'
import { projectOf, requireApiKey } from '../auth/api-key.ts'
import { API_KEY_SECURITY as security, errorResponses, ref } from '../shared/schema.ts'
import { SessionParams } from '../sessions/schema.ts'
import { ChunkEvents, ChunkParams, RecordingResponse } from './schema.ts'
import * as service from './service.ts'

/** Read API v1 extension: a session's screen recording, with the same key as the rest of the API. */
export const recordingRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  app.addHook('onRequest', requireApiKey)

  app.get('/sessions/:id/recording', {
    schema: {
      operationId: 'getSessionRecording',
      tags: ['recording'],
      summary: 'List a session\'s screen recording chunks',
      description: 'The recording counters and the stored chunks in recording order. Fetch each chunk\'s events from '
        + '`/sessions/{id}/recording/chunks/{chunkId}` and feed them, concatenated in this order, to rrweb-player. '
        + 'A session without a recording answers 200 with `available: false` and no chunks. Unknown, expired and other '
        + `projects' sessions, and ids longer than ${MAX_SESSION_ID_LENGTH} characters, answer 404 alike (after the key check: 401 first).`,
      security,
      params: SessionParams,
      response: { 200: ref(RecordingResponse), ...errorResponses(401, 404, 503) },
    },
  }, (request) => service.getRecording(app.db, projectOf(request), request.params.id))

  app.get('/sessions/:id/recording/chunks/:chunkId', {
    schema: {
      operationId: 'getSessionRecordingChunk',
      tags: ['recording'],
      summary: 'Get one recording chunk: a JSON array of rrweb events',
      description: 'Chunks never change once stored: the answer may be cached privately. '
        + '`curl --compressed` inflates it; without `Accept-Encoding: gzip` the server inflates it. An unknown session '
        + `or chunk answers 404, as does an id over ${MAX_SESSION_ID_LENGTH} or a chunkId over ${MAX_CHUNK_ID_LENGTH} characters `
        + '(after the key check: 401 first).',
      security,
      params: ChunkParams,
      response: {
        200: ref(ChunkEvents, {
          description: 'The chunk\'s rrweb events.',
          headers: { 'Content-Encoding': { type: 'string', enum: ['gzip'], description: 'gzip when the request accepts it: the chunk as stored.' } },
        }),
        ...errorResponses(401, 404, 503),
      },
    },
  }, async (request, reply) => {
    const data = await service.getChunk(app.db, projectOf(request), request.params.id, request.params.chunkId)
    return sendChunk(request, reply, data)
  })
  done()
}

/** Sends stored gzip data as JSON: as is when the client takes gzip, inflated otherwise. */
export async function sendChunk(request: FastifyRequest, reply: FastifyReply, data: Buffer): Promise<FastifyReply> {
  void reply.type('application/json; charset=utf-8').header('Vary', 'Accept-Encoding')
    .header('Cache-Control', 'private, max-age=86400')
  if (acceptsGzip(request.headers['accept-encoding'])) return reply.header('Content-Encoding', 'gzip').send(data)
  return reply.send(await service.inflate(data))
}

/** Whether an Accept-Encoding header allows gzip (and does not refuse it with q=0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false
  return header.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    if (name !== 'gzip' && name !== '*') return false
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    return q === undefined || Number(q) > 0
  })
}
