import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { actorOf, audit } from '../audit/service.ts'
import { ProjectParams } from '../projects/schema.ts'
import { EraseBody, EraseResult } from './schema.ts'
import { eraseVisitor } from './service.ts'

/**
 * Erasing a visitor's data from the dashboard: registered inside its API, under /projects/:projectId/erase, so its
 * sign-in and X-Sessionwatch checks guard it.
 */
export const eraseRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  app.post('/', {
    schema: { hide: true, params: ProjectParams, body: EraseBody, response: { 200: EraseResult } },
  }, async (request) => {
    const result = await eraseVisitor(app.db, app.recordings.stores, request.params.projectId, request.body, app.config.ipStorage)
    // What was erased and by whom, never whose: the line names the kind of match and the count, not the user, visit or address.
    const kind = 'userId' in request.body ? 'user' : 'sessionId' in request.body ? 'visit' : 'address'
    await audit(app.db, actorOf(request), 'erase', { projectId: request.params.projectId, detail: { by: kind, visits: result.erased } })
    return result
  })
  done()
}
