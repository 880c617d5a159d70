import type { FastifyPluginCallback } from 'fastify'
import { demoEnabled } from '../assets/demo.ts'
import { publicBase } from '../http/public-url.ts'
import { escapeHtml } from '../util/html.ts'
import { FAVICON_LINK } from './brand.ts'

/** `GET /`: what to do next, for someone who just ran `npm start`, with commands for the address it was opened at. */
export const homeRoutes: FastifyPluginCallback = (app, _opts, done) => {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    // The Host header is the client's to choose: it goes into the page as text, never markup.
    return reply.type('text/html; charset=utf-8')
      .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'").send(homePage(escapeHtml(publicBase(request)), await demoEnabled(app)))
  })
  done()
}

const homePage = (base: string, demo: boolean) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sessionwatch</title>${FAVICON_LINK}
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;color:#1d2330}
code,pre{background:#f3f4f7;border-radius:4px;padding:.1em .3em}pre{padding:.8em;overflow:auto}</style></head>
<body>
<h1>Sessionwatch is running</h1>
<p>It records visits to your site and serves them through the read API v1.</p>
<ol>
<li><b>Your keys.</b> The first start printed the <a href="/app">dashboard</a> password and a project with its
API key (reads) and ingest key (writes). Lost the API key? Rotate it in the dashboard's API tab, or with
<code>npx sessionwatch project rotate-key --project ID</code>. Lost the password?
<code>npx sessionwatch admin reset-password</code>.</li>
<li><b>Send data.</b> ${demo ? 'Open the <a href="/demo">demo shop</a> and press its buttons, or add' : 'Add'} the SDK to your site:
<pre>&lt;script src="${base}/sdk.js"&gt;&lt;/script&gt;
&lt;script&gt;Sessionwatch.init({ ingestKey: 'sw_ing_…', endpoint: '${base}' })&lt;/script&gt;</pre></li>
<li><b>Watch it.</b> The <a href="/app">dashboard</a> lists the sessions; open one for its events and replay.</li>
<li><b>Read it.</b><pre>curl -H "Authorization: Bearer $API_KEY" ${base}/api/v1/sessions</pre></li>
</ol>
<p>API reference: <a href="/api/v1/docs">/api/v1/docs</a> · OpenAPI document: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a></p>
</body></html>
`
