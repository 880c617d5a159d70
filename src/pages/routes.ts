import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { projectOf } from '../auth/api-key.ts'
import type { ReadAccess } from '../http/read-access.ts'
import { errorResponses, ref } from '../util/schema.ts'
import { PageListQuery, PageListResponse } from './schema.ts'
import { listPages } from './service.ts'

/** listPages, for the read API (API key); a dashboard mount passes its own access. */
export const pageReadRoutes: FastifyPluginCallbackTypebox<{ access: ReadAccess }> = (app, { access }, done) => {
  app.addHook('onRequest', access.authenticate)

  app.get('/pages', {
    schema: {
      operationId: 'listPages',
      tags: ['pages'],
      summary: 'List page templates with their views, Core Web Vitals, rage and dead clicks and errors',
      description: 'Each page template\'s counts over the period, read from counters kept at ingest per UTC day: `from`/`to` '
        + 'count every day they touch, `date` one day (it overrides them), none the whole retention. The most viewed first, '
        + 'or the worst p75 of `sort`\'s vital first. Every given parameter is validated: an invalid value answers 400 naming it.',
      ...access.schema,
      querystring: PageListQuery,
      response: { 200: ref(PageListResponse), ...errorResponses(400, 401, 503) },
    },
  }, (request) => listPages(app.db, projectOf(request), request.query))
  done()
}
