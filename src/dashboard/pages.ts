import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { buildBrowser, contentHash, ENTRIES, repoRoot } from '../assets/bundle.ts'
import { sendAsset } from '../assets/routes.ts'
import { FAVICON_LINK } from '../home/brand.ts'
import { TokenParams } from '../replay-links/schema.ts'
import { openLink } from '../replay-links/service.ts'

interface DashboardAssets { js: string; css: string; jsHash: string; cssHash: string }

let cached: Promise<DashboardAssets> | null = null

/** Builds the dashboard (with rrweb-player) once per process, like the SDK, so it always matches its source. */
function dashboardAssets(): Promise<DashboardAssets> {
  cached ??= (async () => {
    const main = path.join(repoRoot(), ...ENTRIES.dashboard)
    const js = (await buildBrowser({ entryPoints: [main], format: 'iife' }))[0]?.text ?? ''
    const player = createRequire(import.meta.url).resolve('rrweb-player/dist/style.css')
    const css = `${fs.readFileSync(player, 'utf8')}\n${fs.readFileSync(path.join(path.dirname(main), 'style.css'), 'utf8')}`
    return { js, css, jsHash: contentHash(js), cssHash: contentHash(css) }
  })().catch((error: unknown) => {
    cached = null // the next request tries again
    throw error
  })
  return cached
}

/**
 * Only the dashboard's own script runs: visitor data is rendered as text, and the replay iframe
 * is sandboxed without scripts. A recorded page may load its images and fonts from their hosts, and nothing else
 * leaves for another host: its styles are inline (rrweb keeps stylesheets' text), and media, fetches, forms and
 * prefetches stay on this server, so a hostile recording cannot send what the dashboard shows anywhere but in an
 * image's or font's URL, which a recording that shows images cannot avoid.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", 'img-src * data: blob:', 'font-src * data:',
  "media-src 'self' data: blob:", "connect-src 'self'", "frame-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** What an expired, revoked or unknown replay link shows. */
const GONE_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Replay not available</title>${FAVICON_LINK}</head>
<body><h1>This replay is not available</h1><p>The link has expired or was revoked, or its project no longer shares replays.</p></body></html>`

/**
 * The dashboard page at /app and its script and styles. Built on the first request rather than at
 * start: an API-only process never pays for bundling rrweb-player.
 */
export const dashboardPages: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  const page = (assets: DashboardAssets) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sessionwatch</title>${FAVICON_LINK}<link rel="stylesheet" href="/app/app.css?v=${assets.cssHash}"></head>
<body><div id="app"></div><script src="/app/app.js?v=${assets.jsHash}"></script></body></html>`
  app.get('/app', { schema: { hide: true } }, async (_request, reply) => {
    const html = page(await dashboardAssets())
    return reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache')
      .header('Content-Security-Policy', DASHBOARD_CSP)
      .header('Referrer-Policy', 'no-referrer').send(html)
  })
  // A public replay link's page: the same script, which sees /r/ and shows that replay alone. A link that no longer
  // works answers 404 before any of it loads.
  app.get('/r/:token', { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const ok = await openLink(app.db, request.params.token).then(() => true, () => false)
    const html = ok ? page(await dashboardAssets()) : GONE_PAGE
    return reply.code(ok ? 200 : 404).type('text/html; charset=utf-8').header('Cache-Control', 'no-store')
      .header('Content-Security-Policy', DASHBOARD_CSP).header('X-Robots-Tag', 'noindex')
      .header('Referrer-Policy', 'no-referrer').send(html)
  })
  app.get('/app/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/app', 301))
  app.get('/app/app.js', { schema: { hide: true } }, async (request, reply) => {
    const assets = await dashboardAssets()
    return sendAsset(request, reply, assets.js, assets.jsHash)
  })
  app.get('/app/app.css', { schema: { hide: true } }, async (request, reply) => {
    const assets = await dashboardAssets()
    return sendAsset(request, reply, assets.css, assets.cssHash, 'text/css; charset=utf-8')
  })
  done()
}
