import v8 from 'node:v8'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.ts'
import type { Config } from './config.ts'

/**
 * Listens, and closes gracefully on SIGINT/SIGTERM: stops accepting connections, lets requests
 * in flight finish (Fastify answers 503 to new ones meanwhile), then closes the database.
 */
export async function serve(config: Config, onListening?: (app: FastifyInstance, url: string) => Promise<void>): Promise<void> {
  // A GC heuristic V8 reads at each full collection, so setting it before the app allocates its working set
  // applies to all of it; V8 has no API for it but its flags.
  if (config.heapGrowthPercent !== null) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`)
  const app = await buildApp({
    config,
    logger: { level: config.logLevel },
  })
  let closing = false
  const shutdown = (signal: string): void => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down')
    const force = setTimeout(() => {
      app.log.error('graceful shutdown took over 10 s; exiting')
      process.exit(1)
    }, 10_000)
    force.unref()
    // server.close() only ends connections idle at that moment; keep-alive sockets whose request
    // finishes later would hold the close open until their keep-alive timeout. Close them as they idle.
    const idle = setInterval(() => { app.server.closeIdleConnections() }, 50)
    idle.unref()
    app.close().then(() => process.exit(0), (error: unknown) => {
      app.log.error({ err: error }, 'error while closing')
      process.exit(1)
    })
  }
  process.once('SIGINT', shutdown)
  process.once('SIGTERM', shutdown)
  const address = await app.listen({ host: config.host, port: config.port })
  await onListening?.(app, address)
}
