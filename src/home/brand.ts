import type { FastifyPluginCallback } from 'fastify'

/**
 * Sessionwatch's mark: a play triangle inside a ring (a visit you can watch), in the dashboard's accent
 * on its dark header colour. One SVG serves as the favicon of every page and as the API reference's logo.
 */
export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">`
  + `<rect width="64" height="64" rx="14" fill="#111a2b"/>`
  + `<circle cx="32" cy="32" r="19" fill="none" stroke="#6f9bff" stroke-width="6"/>`
  + `<path d="M27 22.5v19l15-9.5z" fill="#fff"/></svg>`

/** The `<link>` each HTML page puts in its head. */
export const FAVICON_LINK = '<link rel="icon" href="/favicon.svg" type="image/svg+xml">'

/** `/favicon.svg`, and `/favicon.ico` for browsers and tools that ask for it without reading the page. */
export const brandRoutes: FastifyPluginCallback = (app, _opts, done) => {
  for (const path of ['/favicon.svg', '/favicon.ico']) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply.type('image/svg+xml').header('Cache-Control', 'public, max-age=86400').send(LOGO_SVG))
  }
  done()
}
