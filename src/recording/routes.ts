import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { projectOf } from '../auth/api-key.ts'
import { MAX_CHUNK_ID_LENGTH, MAX_SESSION_ID_LENGTH } from '../contract/limits.ts'
import type { ReadAccess } from '../http/read-access.ts'
import { sendGzippedJson } from '../http/send.ts'
import { errorResponses, ref } from '../util/schema.ts'
import { SessionParams } from '../sessions/schema.ts'
import { ChunkEvents, ChunkParams, RecordingResponse } from './schema.ts'
import * as service from './service.ts'

/** Read API v1 extension: a session's screen recording, for the read API (API key) and the dashboard (sign-in) alike. */
export const recordingRoutes: FastifyPluginCallbackTypebox<{ access: ReadAccess }> = (app, { access }, done) => {
  app.addHook('onRequest', access.authenticate)

  app.get('/sessions/:id/recording', {
    schema: {
      operationId: 'getSessionRecording',
      tags: ['recording'],
      summary: 'List a session\'s screen recording chunks',
      description: 'The recording counters and the stored chunks in recording order. Fetch each chunk\'s events from '
        + '`/sessions/{id}/recording/chunks/{chunkId}` and feed them, concatenated in this order, to rrweb-player. '
        + 'A session without a recording answers 200 with `available: false` and no chunks. Unknown, expired and other '
        + `projects' sessions, and ids longer than ${MAX_SESSION_ID_LENGTH} characters, answer 404 alike (after the key check: 401 first).`,
      ...access.schema,
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
      ...access.schema,
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
    const data = await service.getChunk(app.db, app.recordings.stores, projectOf(request), request.params.id, request.params.chunkId)
    return sendGzippedJson(request, reply, data)
  })
  done()
}
