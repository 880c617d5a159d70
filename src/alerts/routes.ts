import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { actorOf, audit } from '../audit/service.ts'
import { ProjectParams } from '../projects/schema.ts'
import { AddedWebhook, DeliveryLog, NewWebhookBody, WebhookList, WebhookParams } from './schema.ts'
import { addWebhook, deliveryLog, listWebhooks, removeWebhook } from './service.ts'

const hide = { hide: true }

/**
 * A project's webhooks and their delivery log, for the dashboard: registered inside its API, under
 * /projects/:projectId/webhooks, so its sign-in and X-Sessionwatch checks guard them.
 */
export const webhookRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  app.get('/', { schema: { ...hide, params: ProjectParams, response: { 200: WebhookList } } }, async (request) =>
    ({ webhooks: await listWebhooks(app.db, request.params.projectId) }))

  app.post('/', { schema: { ...hide, params: ProjectParams, body: NewWebhookBody, response: { 201: AddedWebhook } } }, async (request, reply) =>
    reply.code(201).send(await app.db.transaction().execute(async (trx) => {
      const added = await addWebhook(trx, request.params.projectId, request.body.url, app.config.webhooks)
      await audit(trx, actorOf(request), 'webhook_added', { projectId: request.params.projectId, target: added.id, detail: { url: added.url } })
      return added
    })))

  app.delete('/:webhookId', { schema: { ...hide, params: WebhookParams } }, async (request, reply) => {
    const { projectId, webhookId } = request.params
    await app.db.transaction().execute(async (trx) => {
      await removeWebhook(trx, projectId, webhookId)
      await audit(trx, actorOf(request), 'webhook_removed', { projectId, target: webhookId })
    })
    return reply.code(204).send()
  })

  app.get('/deliveries', { schema: { ...hide, params: ProjectParams, response: { 200: DeliveryLog } } }, async (request) =>
    ({ deliveries: await deliveryLog(app.db, request.params.projectId) }))
  done()
}
