import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { actorOf, audit } from '../audit/service.ts'
import { ProjectParams } from '../projects/schema.ts'
import { EraseBody, EraseResult } from './schema.ts'
import { eraseKind, eraseVisitor } from './service.ts'

/**
 * Erasing a visitor's data from the dashboard: registered inside its API, under /projects/:projectId/erase, so its
 * sign-in and X-Sessionwatch checks guard it.
 */
export const eraseRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  app.post('/', {
    schema: { hide: true, params: ProjectParams, body: EraseBody, response: { 200: EraseResult } },
  }, async (request) => {
    const result = await eraseVisitor(app.db, app.recordings.stores, request.params.projectId, request.body, app.config.ipStorage)
    await audit(app.db, actorOf(request), 'erase', { projectId: request.params.projectId, detail: { by: eraseKind(request.body), visits: result.erased } })
    return result
  })
  done()
}
