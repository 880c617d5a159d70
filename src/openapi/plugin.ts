import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { TAG_PARAMETER } from '../sessions/schema.ts'
import { ERROR_RULES, READ_API_DESCRIPTION } from './description.ts'
import { LOGO_SVG } from '../home/brand.ts'
import { ERROR_TEXT, ErrorBody } from '../util/schema.ts'

const ONE_KEY = 'Send exactly one key: the same key in both headers is accepted, different keys (also in repeated '
  + 'headers) answer 401 invalid_api_key.'

/**
 * The OpenAPI 3.1 document is generated from the route schemas that validate requests and
 * serialize responses, so the description cannot drift from the behaviour.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sessionwatch API',
        version: '1.0.0',
        description: `${READ_API_DESCRIPTION}\n\n${ERROR_RULES}`,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Relative: the document describes the server that serves it, wherever it is deployed.
      servers: [{ url: '/', description: 'The Sessionwatch server serving this document.' }],
      tags: [
        { name: 'sessions', description: 'Read API v1: recorded visits and their events (API key).' },
        { name: 'recording', description: 'Read API v1 extension: a session\'s screen recording (API key).' },
        { name: 'issues', description: 'Read API v1 extension: errors grouped across visits into issues (API key).' },
        { name: 'releases', description: 'Read API v1 extension: release health from Sentry SDKs\' sessions and our SDK\'s visits (API key).' },
        { name: 'pages', description: 'Read API v1 extension: page templates with their views, Core Web Vitals, rage and dead clicks and errors (API key).' },
        { name: 'ingest', description: 'Write side for the browser SDK (ingest key).' },
        { name: 'sentry', description: 'Ingest from an unmodified Sentry SDK pointed at the project\'s DSN: errors, replays, feedback (DSN key).' },
        { name: 'sourcemaps', description: 'Source map upload for CI (upload key; the API key only reads).' },
        { name: 'operations', description: 'Health checks for load balancers and orchestrators.' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: `The project API key: \`Authorization: Bearer <API_KEY>\`. ${ONE_KEY}` },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: `The project API key. ${ONE_KEY}` },
          uploadKeyBearer: {
            type: 'http', scheme: 'bearer',
            description: 'The project upload key `sw_upl_…`: `Authorization: Bearer <UPLOAD_KEY>`. It only uploads source maps; the API key is refused there.',
          },
          uploadKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'The project upload key, in X-Api-Key instead.' },
          ingestKeyHeader: {
            type: 'apiKey', in: 'header', name: 'X-Ingest-Key',
            description: 'The public, write-only ingest key; beacons may pass it as query `key` or body field `key`.',
          },
          sentryKeyQuery: {
            type: 'apiKey', in: 'query', name: 'sentry_key',
            description: 'The public key of the project\'s Sentry DSN (`https://<key>@host/<id>`), as browser SDKs send it.',
          },
          sentryAuthHeader: {
            type: 'apiKey', in: 'header', name: 'X-Sentry-Auth',
            description: '`Sentry sentry_key=<key>, sentry_version=7`, as server SDKs send it. Through a tunnel, the envelope header\'s `dsn` is enough.',
          },
        },
      },
    },
    transformObject: (documentObject) => {
      const doc = 'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject
      const paths = (doc.paths ?? {}) as Record<string, Record<string, { parameters?: unknown[]; responses?: Record<string, unknown> }>>
      // A parameter the route's querystring schema holds as a pattern (tag.<key>), which the generator skips.
      paths['/api/v1/sessions']?.get?.parameters?.splice(-2, 0, TAG_PARAMETER)
      // Answers any operation can get before its route runs: a head over Node's 16 KiB, and for a path with
      // parameters, a 404 for one outside its schema (the error handler answers those as a missing resource).
      for (const [path, operations] of Object.entries(paths)) {
        for (const operation of Object.values(operations)) {
          operation.responses ??= {}
          operation.responses['431'] ??= errorResponse(431)
          if (path.includes('{')) operation.responses['404'] ??= errorResponse(404)
        }
      }
      return doc
    },
    refResolver: {
      // Name components after their $id (Session, Event, Error…) instead of def-0, def-1…
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  })
  const logo = Buffer.from(LOGO_SVG)
  await app.register(swaggerUi, {
    routePrefix: '/api/v1/docs',
    // No badge fetched from validator.swagger.io: the page contacts no host but this one.
    uiConfig: { docExpansion: 'list', deepLinking: true, defaultModelsExpandDepth: 2, validatorUrl: null },
    // Every script, style and font of swagger-ui is a file it serves (it inlines none), so the page needs no other
    // host and no inline code; no page may frame it.
    staticCSP: "default-src 'self'; script-src 'self'; script-src-attr 'none'; style-src 'self'; img-src 'self' data:; "
      + "font-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    // Sessionwatch's mark and colours rather than the stock fastify logo; the mark links back to the dashboard.
    logo: { type: 'image/svg+xml', content: logo, href: '/app', target: '_self' },
    theme: {
      title: 'Sessionwatch API reference',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: logo }],
      css: [{ filename: 'sessionwatch.css', content: API_DOCS_CSS }],
    },
  })
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, () => app.swagger())
}

/** An error answer as the generated document writes one: its words, and the ApiError body. */
const errorResponse = (status: 404 | 431) => ({
  description: ERROR_TEXT[status], content: { 'application/json': { schema: { $ref: `#/components/schemas/${String((ErrorBody as { $id?: string }).$id)}` } } },
})

/** The reference in the dashboard's colours: its dark header, and the mark at a readable size. */
const API_DOCS_CSS = `.swagger-ui .topbar { background: #111a2b; padding: 6px 0; }
.swagger-ui .topbar a { max-width: 40px; }
.swagger-ui .topbar .topbar-wrapper::after { content: "Sessionwatch API reference"; color: #fff; font: 600 18px system-ui, sans-serif; margin-left: 12px; }
.swagger-ui .topbar .download-url-wrapper { display: none; }`
