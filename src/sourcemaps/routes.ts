import { promisify } from 'node:util'
import { gunzip as gunzipCb } from 'node:zlib'
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { byteSize, MAX_SOURCEMAP_BYTES, SOURCEMAP_LOOKUP_TTL_MS } from '../../common/limits.ts'
import { apiKeyAccess, projectOf } from '../auth/api-key.ts'
import { AppError, invalidBody } from '../errors.ts'
import { API_KEY_SECURITY, errorResponses, ref } from '../shared/schema.ts'
import { SourceMapUploadBody, SourceMapUploadQuery, StoredSourceMapSchema } from './schema.ts'
import { uploadMap } from './service.ts'
import { regroupAfterUpload } from '../issues/regroup.ts'

const gunzip = promisify(gunzipCb)

/**
 * Source map upload for CI, under /upload/v1: the API key's one write. The read API under /api/v1
 * stays read-only; a map changes no recorded data, only how stacks read.
 */
export const sourceMapRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  app.addHook('onRequest', apiKeyAccess.authenticate)
  // The body is the map's bytes whatever Content-Type a CI script sends (`curl --data-binary` says
  // application/x-www-form-urlencoded), and the service parses it once: no parser of Fastify's runs.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_SOURCEMAP_BYTES }, (_request, body, parsed) => { parsed(null, body) })

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
        + '`sources`, or points outside itself answers 400 `invalid_body` naming the fault. This is the only write the '
        + `API key may make. Other processes of the service use the map within ${SOURCEMAP_LOOKUP_TTL_MS / 1000} s.`,
      security: API_KEY_SECURITY,
      querystring: SourceMapUploadQuery,
      consumes: ['application/json', 'application/octet-stream'],
      body: ref(SourceMapUploadBody),
      response: { 201: ref(StoredSourceMapSchema), ...errorResponses(400, 401, 413, 415, 503) },
    },
  }, async (request, reply) => {
    const { url, release, debugId } = request.query
    const data = await inflate(request.body, request.headers['content-encoding'])
    const file = request.query.file ?? `${url.replace(/[?#].*$/s, '').split('/').pop() || 'sourcemap'}.map`
    const projectId = projectOf(request).id
    const stored = await uploadMap(app.db, app.sourceMaps, projectId, { url, file, data, release, debugId })
    // The issues of stacks this map now reads keep their bugs' next (mapped) events.
    await regroupAfterUpload(app.db, app.sourceMaps, projectId)
    return reply.code(201).send(stored)
  })
  done()
}

/** The map's bytes: the body as sent, or inflated when it came gzip-compressed — never beyond MAX_SOURCEMAP_BYTES. */
async function inflate(body: unknown, encoding: string | undefined): Promise<Buffer> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.alloc(0)
  const coding = encoding?.trim().toLowerCase() ?? 'identity'
  if (coding === 'identity' || coding === '') return bytes
  if (coding !== 'gzip' && coding !== 'x-gzip') {
    throw new AppError(415, 'unsupported_media_type',
      `Content-Encoding ${JSON.stringify(encoding)} is not accepted: send the map as is, or gzip-compressed with Content-Encoding: gzip`)
  }
  try {
    return await gunzip(bytes, { maxOutputLength: MAX_SOURCEMAP_BYTES })
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new AppError(413, 'payload_too_large', `The source map inflates to more than ${byteSize(MAX_SOURCEMAP_BYTES)}, the largest accepted`)
    }
    throw invalidBody(`The body is not gzip, though Content-Encoding says so (${(error as Error).message})`, 'body')
  }
}
