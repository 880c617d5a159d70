import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { sql } from 'kysely'
import Type from 'typebox'
import { ref } from '../shared/schema.ts'

export const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
  engine: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
}, { $id: 'Health', title: 'Health', additionalProperties: false })

/** `GET /healthz` for load balancers: 200 when the database answers, 503 when it does not. */
export const healthRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  app.get('/healthz', {
    schema: {
      operationId: 'health',
      tags: ['operations'],
      summary: 'Liveness and database reachability',
      description: 'No key needed. 200 when the database answers a query; 503 when it does not, so a load balancer '
        + 'takes the process out of rotation.',
      response: { 200: ref(Health), 503: ref(Health, { description: 'The database does not answer.' }) },
    },
  }, async (_request, reply) => {
    const engine = app.config.database.engine
    try {
      await sql`select 1`.execute(app.db)
      return { status: 'ok' as const, database: 'ok' as const, engine }
    } catch (error) {
      app.log.warn({ err: error }, 'health check: database unreachable')
      return reply.code(503).send({ status: 'unavailable' as const, database: 'unreachable' as const, engine })
    }
  })
  done()
}
