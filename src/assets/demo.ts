import type { FastifyInstance, FastifyPluginCallback } from 'fastify'
import { AppError } from '../errors.ts'
import { FAVICON_LINK } from '../home/brand.ts'
import { firstRunProjectAlone, listProjects } from '../projects/service.ts'

/**
 * Whether the demo shop is served. It hands out the first project's ingest key, which is harmless while that project
 * is a newcomer's first try and not once real sites record: DEMO=true or false says, and unset it is on only while
 * the project the first start created is the only one.
 */
export async function demoEnabled(app: Pick<FastifyInstance, 'db' | 'config'>): Promise<boolean> {
  return app.config.demo ?? firstRunProjectAlone(app.db)
}

/**
 * `GET /demo`: a page with the SDK installed and buttons that cause each kind of event, so a
 * newcomer sees real data in the API within a minute of `npm start`. It records into the project whose
 * ingest key is in its query (`/demo?key=sw_ing_…`, as each project's empty sessions list links it), else
 * into the oldest project (ingest keys are public and write-only by design). Off (demoEnabled), every /demo route
 * is a 404.
 */
export const demoRoutes: FastifyPluginCallback = (app, _opts, done) => {
  app.addHook('onRequest', async () => {
    if (!(await demoEnabled(app))) {
      throw new AppError(404, 'route_not_found',
        'The demo shop is off: set DEMO=true to serve it (unset, it is on only while the project created at first start is the only one)')
    }
  })
  const csp = "default-src 'self'; img-src 'self' data:; style-src 'unsafe-inline'; connect-src 'self'"
  app.get('/demo', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('Content-Security-Policy', csp).send(DEMO_PAGE))
  app.get('/demo.js', { schema: { hide: true } }, async (_request, reply) => {
    const project = (await listProjects(app.db))[0]
    const init = project
      ? `Sessionwatch.init({ ingestKey: new URLSearchParams(location.search).get('key') || ${JSON.stringify(project.ingestKey)}, `
        + 'flushIntervalMs: 1000, recordCheckoutMs: 5000 })'
      : 'document.body.prepend("No project yet: run `npx sessionwatch project create` first.")'
    return reply.type('application/javascript; charset=utf-8').header('Cache-Control', 'no-store').send(`${init}\n${DEMO_SCRIPT}`)
  })
  app.get('/demo/fail', { schema: { hide: true } }, async (_request, reply) =>
    reply.code(500).send({ error: 'The demo endpoint failed on purpose' }))
  app.post('/demo/fail', { schema: { hide: true } }, async (_request, reply) =>
    reply.code(401).send({ error: 'Wrong password (on purpose)' }))
  app.get('/demo/slow', { schema: { hide: true } }, async () => {
    await new Promise((r) => setTimeout(r, 1300))
    return { ok: true, tookMs: 1300 }
  })
  done()
}

const DEMO_SCRIPT = `
const on = (id, fn) => document.getElementById(id).addEventListener('click', fn)
on('error', () => { setTimeout(() => { throw new TypeError('Demo error: cart is undefined') }) })
on('fail', () => fetch('/demo/fail'))
on('login', () => fetch('/demo/fail', { method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: document.getElementById('email').value, password: document.getElementById('password').value }) }))
on('slow', () => fetch('/demo/slow'))
on('report', () => Sessionwatch.report(document.getElementById('note').value || 'The checkout button does nothing'))
on('page', () => { const q = new URLSearchParams(location.search); q.set('step', String(Date.now())); history.pushState({}, '', '/demo?' + q) })
`

const DEMO_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sessionwatch demo shop</title>${FAVICON_LINK}
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}button{margin:.2rem}
input{margin:.2rem}</style></head>
<body>
<h1>Demo shop</h1>
<p>This page runs the Sessionwatch SDK and records the screen. Each button causes an event; watch the visit in the <a href="/app">dashboard</a> or read it with
<code>curl -H "Authorization: Bearer $API_KEY" /api/v1/sessions</code>.</p>
<p><button type="button" id="error">Throw an error</button><button type="button" id="fail">Failing request</button>
<button type="button" id="slow">Slow request</button><button type="button" id="page">Go to another page (SPA)</button></p>
<form><input id="email" name="email" placeholder="email">
<input id="password" name="password" type="password" placeholder="password"><button type="button" id="login">Log in (fails)</button></form>
<p><input id="note" name="note" placeholder="What went wrong?"><button type="button" id="report">Report a problem</button></p>
<script src="/sdk.js"></script><script src="/demo.js"></script>
</body></html>
`
