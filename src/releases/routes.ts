import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { projectOf } from '../auth/api-key.ts'
import type { ReadAccess } from '../http/read-access.ts'
import { errorResponses, ref } from '../util/schema.ts'
import { ReleaseDetailQuery, ReleaseDetailResponse, ReleaseListQuery, ReleaseListResponse, ReleaseParams } from './schema.ts'
import * as service from './service.ts'

/** listReleases and getRelease, for the read API (API key) and the dashboard (sign-in) alike. */
export const releaseReadRoutes: FastifyPluginCallbackTypebox<{ access: ReadAccess }> = (app, { access }, done) => {
  app.addHook('onRequest', access.authenticate)

  app.get('/releases', {
    schema: {
      operationId: 'listReleases',
      tags: ['releases'],
      summary: 'List releases with their health: sessions, crash-free rates, users, new issues',
      description: 'Pages through the project\'s releases, one per environment, the most recently first seen first. Counted at '
        + 'ingest from Sentry SDKs\' session items and our SDK\'s visits; `from`/`to` select the releases active in the period, '
        + 'with their whole counts. Every given parameter is validated: an invalid value answers 400 naming it.',
      ...access.schema,
      querystring: ReleaseListQuery,
      response: { 200: ref(ReleaseListResponse), ...errorResponses(400, 401, 503) },
    },
  }, (request) => service.listReleases(app.db, projectOf(request), request.query))

  app.get('/releases/:release', {
    schema: {
      operationId: 'getRelease',
      tags: ['releases'],
      summary: 'Get one release: its health, sessions per day and the issues it opened',
      description: 'The release name is URL-encoded in the path. A release with sessions in several environments needs '
        + '`environment=` (400 naming it otherwise); an unknown release or environment answers 404 not_found.',
      ...access.schema,
      params: ReleaseParams,
      querystring: ReleaseDetailQuery,
      response: { 200: ref(ReleaseDetailResponse), ...errorResponses(400, 401, 404, 503) },
    },
  }, (request) => service.getRelease(app.db, projectOf(request), request.params.release, request.query))
  done()
}
