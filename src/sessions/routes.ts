import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { apiKeyAccess, projectOf } from '../auth/api-key.ts'
import { MAX_SESSION_ID_LENGTH } from '../contract/limits.ts'
import type { ReadAccess } from '../http/read-access.ts'
import { sendJson } from '../http/send.ts'
import { errorResponses, ref } from '../util/schema.ts'
import { DetailResponse, ListQuery, ListResponse, SessionParams } from './schema.ts'
import * as service from './service.ts'

/** The read API v1's listSessions (the dashboard lists with filters of its own). */
export const sessionListRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  app.addHook('onRequest', apiKeyAccess.authenticate)

  app.get('/sessions', {
    schema: {
      operationId: 'listSessions',
      tags: ['sessions'],
      summary: 'List sessions, most recent activity first',
      description: 'Pages through the project\'s sessions ordered by lastSeenAt descending, then id descending, so pages '
        + 'never overlap or skip. `date` selects one UTC day of startedAt and overrides from/to. Every given parameter '
        + 'is validated: an invalid value answers 400 naming it; nothing is clamped. Expired sessions are never listed.',
      ...apiKeyAccess.schema,
      querystring: ListQuery,
      response: { 200: ref(ListResponse), ...errorResponses(400, 401, 503) },
    },
  }, async (request) => service.listSessions(app.db, projectOf(request), request.query))
  done()
}

/** getSession, for the read API (API key) and the dashboard (sign-in) alike. */
export const sessionReadRoutes: FastifyPluginCallbackTypebox<{ access: ReadAccess }> = (app, { access }, done) => {
  app.addHook('onRequest', access.authenticate)

  app.get('/sessions/:id', {
    schema: {
      operationId: 'getSession',
      tags: ['sessions'],
      summary: 'Get one session with all its events',
      description: 'Returns every field of the list session plus `recording`, and all events in the order they '
        + 'happened. Unknown, deleted, expired and other projects\' sessions all answer 404 alike, and so does an id '
        + `longer than ${MAX_SESSION_ID_LENGTH} characters (none exists). The key is checked first: without a valid one, 401.`,
      ...access.schema,
      params: SessionParams,
      response: { 200: ref(DetailResponse), ...errorResponses(401, 404, 503) },
    },
  }, async (request, reply) => sendJson(reply, await service.getSession(app.db, app.sourceMaps, projectOf(request), request.params.id)))
  done()
}
