import fs from 'node:fs'
import type { Readable } from 'node:stream'
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { byteSize } from '../util/limits.ts'
import { MAX_SOURCEMAP_BYTES, SOURCEMAP_LOOKUP_TTL_MS, SOURCEMAP_MAX_CONCURRENT_UPLOADS } from './limits.ts'
import { projectOf, uploadKeyAccess } from '../auth/api-key.ts'
import { AppError } from '../errors.ts'
import { createGate } from '../util/gate.ts'
import { errorResponses, ref, UPLOAD_KEY_SECURITY } from '../util/schema.ts'
import { receiveToFile, removeReceived, type ReceivedFile } from './receive.ts'
import { SourceMapUploadBody, SourceMapUploadQuery, StoredSourceMapSchema } from './schema.ts'
import { uploadMap } from './service.ts'
import { regroupAfterUpload } from '../issues/index.ts'

/**
 * Source map upload for CI, under /upload/v1, with the project's upload key: the API key reads only. The body is
 * streamed to a temporary file as it arrives (receive.ts), and at most SOURCEMAP_MAX_CONCURRENT_UPLOADS run at once
 * per process: a map is parsed whole to be checked, so each one running holds its size in memory for a moment.
 */
export const sourceMapRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  const uploads = createGate(SOURCEMAP_MAX_CONCURRENT_UPLOADS)
  const holding = new WeakSet<FastifyRequest>()
  const release = async (request: FastifyRequest) => {
    if (holding.delete(request)) uploads.leave()
    const body = request.body as Partial<ReceivedFile> | undefined
    if (typeof body?.dir === 'string') await removeReceived({ dir: body.dir })
  }
  app.addHook('onRequest', uploadKeyAccess.authenticate)
  // After the key, before the body: a request beyond the bound is answered before any of its bytes are read.
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (!uploads.tryEnter()) {
      throw new AppError(503, 'service_unavailable',
        `${SOURCEMAP_MAX_CONCURRENT_UPLOADS} source map uploads are running on this server, the most at once; retry after the Retry-After seconds`)
    }
    holding.add(request)
    return payload
  })
  app.addHook('onResponse', release)
  app.addHook('onRequestAbort', release)
  // The body is the map's bytes whatever Content-Type a CI script sends (`curl --data-binary` says
  // application/x-www-form-urlencoded), and the service parses it once: no parser of Fastify's runs.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', async (request: FastifyRequest, payload: Readable) =>
    receiveToFile(payload, request.headers['content-encoding'], MAX_SOURCEMAP_BYTES))

  app.post('/sourcemaps', {
    bodyLimit: MAX_SOURCEMAP_BYTES,
    schema: {
      operationId: 'uploadSourceMap',
      tags: ['sourcemaps'],
      summary: 'Upload the source map of a minified file',
      description: 'The body is the map file as the bundler wrote it (any Content-Type; `Content-Encoding: gzip` '
        + `accepted), up to ${byteSize(MAX_SOURCEMAP_BYTES)} uncompressed. \`url\` is the minified file's public URL, or `
        + '`~/path` for that path on any host. A newer upload for the same url replaces the map. Stacks are mapped when '
        + 'they are read, so events stored before the upload show original files, lines and function names too. The '
        + 'map is checked whole before anything is stored: one that is not JSON, not version 3, lacks `mappings` or '
        + '`sources`, or points outside itself answers 400 `invalid_body` naming the fault. It takes the project\'s upload '
        + `key (\`sw_upl_…\`), which only uploads; the API key only reads and is refused here. At most `
        + `${SOURCEMAP_MAX_CONCURRENT_UPLOADS} uploads run at once per server process; one more answers 503 with Retry-After. `
        + `Other processes of the service use the map within ${SOURCEMAP_LOOKUP_TTL_MS / 1000} s.`,
      security: UPLOAD_KEY_SECURITY,
      querystring: SourceMapUploadQuery,
      consumes: ['application/json', 'application/octet-stream'],
      body: ref(SourceMapUploadBody),
      response: { 201: ref(StoredSourceMapSchema), ...errorResponses(400, 401, 413, 415, 503) },
    },
  }, async (request, reply) => {
    const { url, release: mapRelease, debugId } = request.query
    // No body at all runs no parser: the map is empty, which the check refuses naming it.
    const received = request.body as unknown as ReceivedFile | undefined
    const data = received === undefined ? Buffer.alloc(0) : await fs.promises.readFile(received.file)
    const file = request.query.file ?? `${url.replace(/[?#].*$/s, '').split('/').pop() || 'sourcemap'}.map`
    const projectId = projectOf(request).id
    const stored = await uploadMap(app.db, app.sourceMaps, projectId, { url, file, data, release: mapRelease, debugId })
    // The issues of stacks this map now reads keep their bugs' next (mapped) events.
    await regroupAfterUpload(app.db, app.sourceMaps, projectId)
    return reply.code(201).send(stored)
  })
  done()
}
