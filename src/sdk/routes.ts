import type { FastifyPluginAsync } from 'fastify'
import { sdkBundle } from './bundle.ts'

/**
 * The browser SDK: /sdk.js (short cache, revalidated by ETag) for the snippet, /sdk/<hash>.js
 * (immutable) for pages that pin a version, /sdk.mjs for bundlers.
 */
export const sdkRoutes: FastifyPluginAsync = async (app) => {
  const sdk = await sdkBundle()
  const js = 'application/javascript; charset=utf-8'
  app.get('/sdk.js', { schema: { hide: true } }, async (request, reply) => {
    const etag = `"${sdk.hash}"`
    void reply.header('ETag', etag).header('Cache-Control', 'public, max-age=300').header('Access-Control-Allow-Origin', '*')
    if (request.headers['if-none-match'] === etag) return reply.code(304).send()
    return reply.type(js).send(sdk.script)
  })
  app.get<{ Params: { hash: string } }>('/sdk/:hash.js', { schema: { hide: true } }, async (request, reply) => {
    if (request.params.hash !== sdk.hash) return reply.redirect('/sdk.js', 302)
    return reply.type(js).header('Cache-Control', 'public, max-age=31536000, immutable').header('Access-Control-Allow-Origin', '*').send(sdk.script)
  })
  app.get('/sdk.mjs', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(js).header('Cache-Control', 'public, max-age=300').header('Access-Control-Allow-Origin', '*').send(sdk.module))
}
