import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { sdkBundle } from './bundle.ts'

const JS = 'application/javascript; charset=utf-8'

/** Sends a script with a short cache revalidated by its content-hash ETag, to any origin. */
export function sendRevalidated(request: FastifyRequest, reply: FastifyReply, body: string, hash: string, type = JS): FastifyReply {
  const etag = `"${hash}"`
  void reply.header('ETag', etag).header('Cache-Control', 'public, max-age=300').header('Access-Control-Allow-Origin', '*')
  if (request.headers['if-none-match'] === etag) return reply.code(304).send()
  return reply.type(type).send(body)
}

/**
 * The browser SDK: /sdk.js (short cache, revalidated by ETag) for the snippet, /sdk/<hash>.js
 * (immutable) for pages that pin a version, /sdk.mjs for bundlers, and /sdk/recorder.js, the
 * screen recorder the SDK loads after the page.
 */
export const sdkRoutes: FastifyPluginAsync = async (app) => {
  const sdk = await sdkBundle()
  app.get('/sdk.js', { schema: { hide: true } }, async (request, reply) => sendRevalidated(request, reply, sdk.script, sdk.hash))
  app.get('/sdk/recorder.js', { schema: { hide: true } }, async (request, reply) =>
    sendRevalidated(request, reply, sdk.recorder, sdk.recorderHash))
  app.get<{ Params: { hash: string } }>('/sdk/:hash.js', { schema: { hide: true } }, async (request, reply) => {
    if (request.params.hash !== sdk.hash) return reply.redirect('/sdk.js', 302)
    return reply.type(JS).header('Cache-Control', 'public, max-age=31536000, immutable').header('Access-Control-Allow-Origin', '*').send(sdk.script)
  })
  app.get('/sdk.mjs', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(JS).header('Cache-Control', 'public, max-age=300').header('Access-Control-Allow-Origin', '*').send(sdk.module))
}
