import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import type { Kysely } from 'kysely'
import { REQUEST_TIMEOUT_CHECK_MS } from './http/limits.ts'
import type { Config } from './config.ts'
import { openDatabase, type Database } from './database.ts'
import { createDatabaseStatus, type DatabaseStatus } from './db/status.ts'
import { openCountryLookup, type CountryLookup } from './geo/country.ts'
import { startWebhookWorker, type WebhookWorkerOptions } from './alerts/worker.ts'
import { dashboardAuth } from './dashboard/auth.ts'
import { ensureOwner } from './accounts/service.ts'
import { openMailer, type Mailer } from './mail/mailer.ts'
import { dashboardPages } from './dashboard/pages.ts'
import { dashboardApi } from './dashboard/routes.ts'
import { Health, healthRoutes } from './health/routes.ts'
import { brandRoutes } from './home/brand.ts'
import { homeRoutes } from './home/routes.ts'
import { demoRoutes } from './assets/demo.ts'
import { sdkRoutes } from './assets/routes.ts'
import { clientErrorHandler, frameworkErrorHandler, installErrorHandler } from './http/error-handler.ts'
import { buildSerializer, buildValidator } from './http/validation.ts'
import { ingestRoutes } from './ingest/routes.ts'
import { ingestSchemas } from './contract/index.ts'
import { createWriter, type Writer } from './visits/index.ts'
import { registerIngestLimits } from './limits/ingest.ts'
import { registerOpenApi } from './openapi/plugin.ts'
import { recordingRoutes } from './recording/routes.ts'
import { recordingSchemas } from './recording/schema.ts'
import type { Recordings } from './recording/service.ts'
import { openStores, type RecordingStores } from './recording/store/index.ts'
import { startRecordingUpkeep } from './recording/upkeep.ts'
import { startSweeper } from './retention/sweeper.ts'
import { sharedSchemas } from './sessions/schema.ts'
import { issueReadRoutes } from './issues/routes.ts'
import { issueSchemas } from './issues/schema.ts'
import { releaseReadRoutes } from './releases/routes.ts'
import { releaseSchemas } from './releases/schema.ts'
import { pageReadRoutes } from './pages/routes.ts'
import { pageSchemas } from './pages/schema.ts'
import { sessionListRoutes, sessionReadRoutes } from './sessions/routes.ts'
import { apiKeyAccess } from './auth/api-key.ts'
import { ErrorBody } from './util/schema.ts'
import { createResolver, type SourceMapResolver } from './sourcemaps/resolve.ts'
import { sourceMapRoutes } from './sourcemaps/routes.ts'
import { sourceMapSchemas } from './sourcemaps/schema.ts'
import { sentryRoutes } from './sentry/routes.ts'
import { sentrySchemas } from './sentry/schema.ts'

declare module 'fastify' {
  interface FastifyInstance {
    db: Kysely<Database>
    writer: Writer
    geo: CountryLookup
    config: Config
    databaseStatus: DatabaseStatus
    /** Maps stack frames through the uploaded source maps: getSession's `frames`, and grouping at ingest. */
    sourceMaps: SourceMapResolver
    /** The recording limits and stores (RECORDINGS_URL): where chunks are written and read. */
    recordings: Recordings
    /** The first owner's password when this start made one (a new install without ADMIN_PASSWORD): printed once. */
    firstOwnerPassword: string | null
    /** Sends invitations through SMTP_URL; null when it is unset (the link is shown to copy). */
    mailer: Mailer | null
  }
}

export interface BuildOptions {
  config: Config
  logger?: FastifyServerOptions['logger']
  /** The webhook worker's timings and DNS: tests shorten the backoff and resolve names their own way. */
  webhooks?: WebhookWorkerOptions
}

/**
 * Builds the whole service — database, routes, schemas, error handling, retention sweeper, webhook worker —
 * without listening. Production (server.ts) and the tests build it the same way.
 */
export async function buildApp({ config, logger = false, webhooks }: BuildOptions): Promise<FastifyInstance> {
  const base: FastifyInstance = Fastify({
    logger,
    trustProxy: trustProxyOption(config.trustProxy),
    schemaController: { compilersFactory: { buildValidator, buildSerializer } },
    return503OnClosing: true,
    logController: new AccessLogAtDebug(),
    // The router would answer an undocumented 414 for a path parameter over 100 characters, before
    // the key is checked. Node already bounds the whole request head (16 KiB); the route schemas
    // bound each parameter, after the key, with a 404 (see the error handler).
    routerOptions: { maxParamLength: 16_384 },
    // Deadlines for a request's head and whole body, so a trickled request cannot hold a connection (and its
    // partial body) open for ever: past them Node raises ERR_HTTP_REQUEST_TIMEOUT, which clientErrorHandler
    // answers as our JSON 408 before closing the socket; the route never sees a whole body, so nothing is stored.
    requestTimeout: config.timeouts.requestMs,
    http: {
      headersTimeout: config.timeouts.headersMs,
      connectionsCheckingInterval: Math.min(REQUEST_TIMEOUT_CHECK_MS, Math.ceil(
        Math.min(config.timeouts.headersMs, config.timeouts.requestMs || config.timeouts.headersMs) / 4)),
    },
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
  })
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const status = createDatabaseStatus(base.log)
  const database = await openDatabase(config.database, { onConnectionError: (error) => { status.failed(error) } })
    .catch(async (error: unknown) => {
      await app.close()
      throw error
    })
  let stores: RecordingStores | null = null
  try {
    app.decorate('db', database.db)
    app.decorate('databaseStatus', status)
    app.decorate('geo', openCountryLookup(config.geoipDatabase))
    app.decorate('config', config)
    app.decorate('sourceMaps', createResolver(database.db, { cacheBytes: config.sourceMapCacheBytes }))
    stores = await openStores(database.db, config.recordings)
    app.decorate('recordings', { ...config.recording, stores })
    app.decorateRequest('project', null)
    const writer = createWriter(database.db, { onCommitted: () => { status.written() }, lanes: config.database.writers })
    app.decorate('writer', writer)
    await registerIngestLimits(base, config.ingestRateLimit)
    installErrorHandler(base)
    // No browser guesses a type other than the one sent (an uploaded or recorded body served as JSON never runs as a script).
    base.addHook('onRequest', (_request, reply, done) => {
      void reply.header('X-Content-Type-Options', 'nosniff')
      done()
    })
    for (const schema of [ErrorBody, ...sourceMapSchemas, ...sharedSchemas, ...issueSchemas, ...releaseSchemas, ...pageSchemas, ...recordingSchemas, ...ingestSchemas, ...sentrySchemas, Health]) app.addSchema(schema)

    await registerOpenApi(base)
    await app.register(sessionListRoutes, { prefix: '/api/v1' })
    await app.register(sessionReadRoutes, { prefix: '/api/v1', access: apiKeyAccess })
    await app.register(recordingRoutes, { prefix: '/api/v1', access: apiKeyAccess })
    await app.register(issueReadRoutes, { prefix: '/api/v1', access: apiKeyAccess })
    await app.register(releaseReadRoutes, { prefix: '/api/v1', access: apiKeyAccess })
    await app.register(pageReadRoutes, { prefix: '/api/v1', access: apiKeyAccess })
    await app.register(ingestRoutes, { prefix: '/ingest/v1' })
    await app.register(sourceMapRoutes, { prefix: '/upload/v1' })
    await app.register(sentryRoutes)
    // The first owner exists before the first request; a password made for it here is printed by first-run.ts.
    const mailer = config.smtp === null ? null : openMailer(config.smtp)
    app.decorate('mailer', mailer)
    app.addHook('onClose', () => { mailer?.close() })
    app.decorate('firstOwnerPassword', await ensureOwner(database.db, { generate: config.adminPassword === null }))
    await app.register(dashboardApi(dashboardAuth(database.db, config.adminPassword)), { prefix: '/app/api' })
    await app.register(dashboardPages)
    await app.register(homeRoutes)
    await app.register(brandRoutes)
    await app.register(sdkRoutes)
    await app.register(demoRoutes)
    await app.register(healthRoutes)
    const stopSweeper = startSweeper(base, config.retentionSweepSeconds)
    const stopWebhooks = startWebhookWorker(base, webhooks)
    const stopUpkeep = startRecordingUpkeep(base)
    // In this order: no new sweep, no delivery in flight (their claims handed back), every accepted batch
    // committed, then the database closed.
    app.addHook('onClose', async () => {
      await stopSweeper()
      await stopWebhooks()
      await stopUpkeep()
      await writer.close()
      await stores?.close()
      await database.close()
    })
    await app.ready()
  } catch (error) {
    await app.close()
    await stores?.close()
    await database.close()
    throw error
  }
  return base
}

/**
 * Access logs at debug, not Fastify's info: a start's banner (the first-run password and keys, the dashboard URL)
 * stays on screen under traffic, and LOG_LEVEL=debug shows every request again. A request that errored still
 * logs at error.
 */
class AccessLogAtDebug extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) super.requestCompleted(error, request, reply)
    else if (!this.isLogDisabled(request)) reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}

/** A hop count means: trust that many proxies nearest to the server (Fastify types take it as a function). */
function trustProxyOption(value: Config['trustProxy']): FastifyServerOptions['trustProxy'] {
  return typeof value === 'number' ? (_address: string, hop: number) => hop < value : value
}
