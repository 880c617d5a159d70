import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startTestApp, type TestApp } from '../../helpers/app.ts'
import { realHttp } from '../../helpers/http.ts'

describe('hardening headers', () => {
  let t: TestApp
  before(async () => { t = await startTestApp('sqlite') })
  after(() => t.close())

  it('sends X-Content-Type-Options: nosniff on every answer: JSON, errors, pages, scripts, refusals before routing', async () => {
    const answers = [
      await t.get('/api/v1/sessions'),
      await t.get('/api/v1/sessions', 'sw_api_wrong'),
      await t.app.inject({ url: '/api/v1/sessions?limit=0', headers: { authorization: `Bearer ${t.project.apiKey}` } }),
      await t.app.inject({ url: '/nope' }),
      await t.app.inject({ url: '/%zz' }),
      await t.app.inject({ url: '/' }),
      await t.app.inject({ url: '/app' }),
      await t.app.inject({ url: '/sdk.js' }),
      await t.app.inject({ url: '/api/v1/openapi.json' }),
      await t.ingest({ sessionKey: 'k', batchId: 'b', events: [{ type: 'ERROR', message: 'x' }] }),
      await t.ingest('{', {}),
    ]
    for (const res of answers) assert.equal(res.headers['x-content-type-options'], 'nosniff', `${res.statusCode} ${res.body.slice(0, 80)}`)
    const send = await realHttp(t.app)
    const huge = await send('GET', '/healthz', { 'x-padding': 'x'.repeat(20_000) })
    assert.equal(huge.status, 431)
    assert.equal(huge.headers['x-content-type-options'], 'nosniff', 'a head Node refused before any route')
  })

  it('the API reference allows only its own scripts and no framing, and contacts no other host', async () => {
    const first = await t.app.inject({ url: '/api/v1/docs' })
    const page = first.statusCode === 302 ? await t.app.inject({ url: String(first.headers.location) }) : first
    assert.equal(page.statusCode, 200)
    const csp = String(page.headers['content-security-policy'])
    assert.match(csp, /frame-ancestors 'none'/)
    assert.match(csp, /default-src 'self'/)
    assert.match(csp, /script-src 'self';/, 'scripts: its own files only')
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|validator\.swagger\.io|upgrade-insecure-requests/)
  })

  it('the dashboard lets a replay load images and fonts from anywhere, and send nothing elsewhere', async () => {
    const csp = String((await t.app.inject({ url: '/app' })).headers['content-security-policy'])
    const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...sources]) => [name, sources]))
    assert.ok(directives.get('img-src')?.includes('*'))
    assert.ok(directives.get('font-src')?.includes('*'))
    for (const [name, sources] of directives) {
      if (name === 'img-src' || name === 'font-src') continue
      assert.ok(!sources.some((s) => s === '*' || /^https?:$/.test(s)), `${String(name)} allows another host: ${sources.join(' ')}`)
    }
    for (const name of ['default-src', 'connect-src', 'style-src', 'media-src', 'form-action', 'frame-ancestors']) {
      assert.ok(directives.has(name), `${name} is set`)
    }
  })
})
