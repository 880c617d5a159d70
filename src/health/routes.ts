import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { sql } from 'kysely'
import Type from 'typebox'
import { ref } from '../util/schema.ts'

export const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')], {
    description: 'Whether the database answers a query now.',
  }),
  storage: Type.Union([Type.Literal('ok'), Type.Literal('full')], {
    description: '`full` while writes fail for lack of disk space (reported until a write succeeds, or for 30 s after '
      + 'the last one that failed, whichever is first); reads may still work meanwhile.',
  }),
  engine: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
}, { $id: 'Health', title: 'Health', additionalProperties: false })

/** `GET /healthz` for load balancers: 200 when the database answers and has room, 503 otherwise. */
export const healthRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  app.get('/healthz', {
    schema: {
      operationId: 'health',
      tags: ['operations'],
      summary: 'Liveness, database reachability and disk space',
      description: 'No key needed. 200 when the database answers a query and writes are not failing for lack of '
        + 'space; 503 otherwise, so a load balancer takes the process out of rotation. Both recover by themselves '
        + 'once the database is back or space is freed; the service needs no restart.',
      response: { 200: ref(Health), 503: ref(Health, { description: 'The database does not answer, or its disk is full.' }) },
    },
  }, async (_request, reply) => {
    const engine = app.config.database.engine
    const status = app.databaseStatus
    try {
      await sql`select 1`.execute(app.db)
    } catch (error) {
      // Logged once per outage by the database status, not once per probe.
      status.failed(error)
      const storage = status.storageFull() ? 'full' as const : 'ok' as const
      return reply.code(503).send({ status: 'unavailable' as const, database: 'unreachable' as const, storage, engine })
    }
    status.reachable()
    if (status.storageFull()) {
      return reply.code(503).send({ status: 'unavailable' as const, database: 'ok' as const, storage: 'full' as const, engine })
    }
    return { status: 'ok' as const, database: 'ok' as const, storage: 'ok' as const, engine }
  })
  done()
}
