import { promisify } from 'node:util'
import { brotliCompress as brotliCb, constants, gzip as gzipCb } from 'node:zlib'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { contentHash, sdkBundle } from './bundle.ts'

const JS = 'application/javascript; charset=utf-8'
const brotli = promisify(brotliCb)
const gzip = promisify(gzipCb)

type Encoding = 'br' | 'gzip'

/**
 * The compression a client asked for, brotli first (smaller), then gzip; null for none. `q=0` refuses an encoding;
 * `*` accepts any.
 */
export function preferredEncoding(header: string | undefined): Encoding | null {
  if (!header) return null
  const accepted = new Map<string, number>()
  for (const part of header.split(',')) {
    const [token = '', ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    accepted.set(token.trim(), q === undefined ? 1 : Number(q.slice(2)) || 0)
  }
  const wildcard = accepted.get('*') ?? 0
  for (const encoding of ['br', 'gzip'] as const) if ((accepted.get(encoding) ?? wildcard) > 0) return encoding
  return null
}

/**
 * Each served asset compressed once per content hash, at the best levels (the few assets change only with a
 * deploy, so the cost is paid once per process), off the event loop.
 */
const compressed = new Map<string, Promise<Record<Encoding, Buffer>>>()
function compressedOf(body: string, hash: string): Promise<Record<Encoding, Buffer>> {
  let entry = compressed.get(hash)
  if (!entry) {
    entry = Promise.all([
      brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
      gzip(body, { level: 9 }),
    ]).then(([br, gz]) => ({ br, gzip: gz }))
    compressed.set(hash, entry)
  }
  return entry
}

/**
 * Sends a script (or the dashboard's styles) to any origin, compressed as the client accepts (brotli or gzip),
 * with its content hash as ETag: `revalidate` for a short cache revalidated by the ETag, `immutable` for a URL that
 * names the content.
 */
export async function sendAsset(
  request: FastifyRequest, reply: FastifyReply, body: string, hash: string, type = JS, cache: 'revalidate' | 'immutable' = 'revalidate',
): Promise<FastifyReply> {
  const etag = `"${hash}"`
  void reply.header('ETag', etag).header('Vary', 'Accept-Encoding').header('Access-Control-Allow-Origin', '*')
    .header('Cache-Control', cache === 'immutable' ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
  if (cache === 'revalidate' && request.headers['if-none-match'] === etag) return reply.code(304).send()
  const encoding = preferredEncoding(request.headers['accept-encoding'])
  if (encoding === null) return reply.type(type).send(body)
  return reply.type(type).header('Content-Encoding', encoding).send((await compressedOf(body, hash))[encoding])
}

/**
 * The browser SDK: /sdk.js (short cache, revalidated by ETag) for the snippet, /sdk/<hash>.js
 * (immutable) for pages that pin a version, /sdk.mjs for bundlers, /sdk/recorder.js, the
 * screen recorder the SDK loads after the page, and /sdk/vitals.js, the Core Web Vitals it loads at start. All
 * compressed as the browser accepts.
 */
export const sdkRoutes: FastifyPluginAsync = async (app) => {
  const sdk = await sdkBundle()
  app.get('/sdk.js', { schema: { hide: true } }, async (request, reply) => sendAsset(request, reply, sdk.script, sdk.hash))
  app.get('/sdk/recorder.js', { schema: { hide: true } }, async (request, reply) =>
    sendAsset(request, reply, sdk.recorder, sdk.recorderHash))
  app.get('/sdk/vitals.js', { schema: { hide: true } }, async (request, reply) =>
    sendAsset(request, reply, sdk.vitals, sdk.vitalsHash))
  app.get<{ Params: { hash: string } }>('/sdk/:hash.js', { schema: { hide: true } }, async (request, reply) => {
    if (request.params.hash !== sdk.hash) return reply.redirect('/sdk.js', 302)
    return sendAsset(request, reply, sdk.script, sdk.hash, JS, 'immutable')
  })
  app.get('/sdk.mjs', { schema: { hide: true } }, async (request, reply) =>
    sendAsset(request, reply, sdk.module, contentHash(sdk.module)))
}
