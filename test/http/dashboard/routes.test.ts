import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { InjectOptions } from 'fastify'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { insertWebhook } from '../../../src/alerts/store.ts'
import { enqueueCommitted, issueAlert } from '../../helpers/alerts.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'
import { chunkUpload, rrwebEvents } from '../../helpers/recording.ts'
import { newWebhookSecret } from '../../../src/alerts/sign.ts'

const PASSWORD = 'dashboard test password'

for (const engine of testEngines()) {
  describe(`dashboard API [${engine}]`, () => {
    let t: TestApp
    let cookie: string
    before(async () => {
      t = await startTestApp(engine, { ADMIN_PASSWORD: PASSWORD })
      const res = await signIn(PASSWORD, '10.0.0.1')
      assert.equal(res.statusCode, 204, res.body)
      cookie = String(res.headers['set-cookie']).split(';')[0] ?? ''
    })
    after(() => t.close())

    const signIn = (password: string, ip: string) => t.app.inject({
      method: 'POST', url: '/app/api/session', remoteAddress: ip, payload: { password },
      headers: { 'x-sessionwatch': '1' },
    })
    const call = (method: InjectOptions['method'], url: string, payload?: unknown, headers: Record<string, string> = {}) =>
      t.app.inject({ method, url: `/app/api${url}`, headers: { cookie, 'x-sessionwatch': '1', ...headers }, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) })

    it('sets an HttpOnly, SameSite=Strict cookie scoped to /app, and a device cookie sent only to the sign-in', async () => {
      const res = await signIn(PASSWORD, '10.0.0.2')
      const [session, device] = res.headers['set-cookie'] as string[]
      assert.match(String(session), /^sw_admin=[^;]+; Path=\/app; HttpOnly; SameSite=Strict; Max-Age=604800$/)
      assert.match(String(device), /^sw_device=[\w-]{22}\.[\w-]{43}; Path=\/app\/api\/session; HttpOnly; SameSite=Strict; Max-Age=31536000$/)
    })

    it('refuses a wrong password with 401 invalid_password', async () => {
      const wrong = await signIn('nope', '10.0.0.3')
      assert.equal(wrong.statusCode, 401)
      assert.equal(json(wrong).code, 'invalid_password')
    })

    it('sets a project\'s rate limit and daily quota, and shows the quota with today\'s usage', async () => {
      const p = await t.newProject('Limited')
      const none = await call('GET', `/projects/${p.id}/usage`)
      assert.equal(none.statusCode, 200, none.body)
      assert.deepEqual(json(none), {
        day: new Date().toISOString().slice(0, 10), events: 0, dailyEventQuota: null, recordingBytes: 0, recordingBudget: null, evictedVisits: 0, evictedBytes: 0,
      })
      const saved = await call('PATCH', `/projects/${p.id}`, { ingestRateLimit: 0, dailyEventQuota: 1000 })
      assert.equal(saved.statusCode, 200, saved.body)
      assert.equal(json(saved).ingestRateLimit, 0)
      assert.equal(json(saved).dailyEventQuota, 1000)
      const sent = await t.ingest(batch('limited-visit-1', [{ type: 'CLICK', message: 'a' }, { type: 'CLICK', message: 'b' }]), { headers: { 'x-ingest-key': p.ingestKey } })
      assert.equal(sent.statusCode, 200, sent.body)
      assert.equal(json(await call('GET', `/projects/${p.id}/usage`)).events, 2)
      const bad = await call('PATCH', `/projects/${p.id}`, { dailyEventQuota: 0 })
      assert.equal(bad.statusCode, 400)
      assert.equal(json(bad).parameter, 'dailyEventQuota')
      const budget = await call('PATCH', `/projects/${p.id}`, { recordingBudget: 500_000_000 })
      assert.equal(json(budget).recordingBudget, 500_000_000)
      assert.equal(json(await call('GET', `/projects/${p.id}/usage`)).recordingBudget, 500_000_000)
      assert.equal((await call('PATCH', `/projects/${p.id}`, { recordingBudget: 0 })).statusCode, 400)
      const back = await call('PATCH', `/projects/${p.id}`, { ingestRateLimit: null, dailyEventQuota: null, recordingBudget: null })
      assert.deepEqual([json(back).ingestRateLimit, json(back).dailyEventQuota, json(back).recordingBudget], [null, null, null])
      const listed = json<{ defaults: { ingestRateLimit: number } }>(await call('GET', '/projects'))
      assert.equal(listed.defaults.ingestRateLimit, 1000, 'the server\'s INGEST_RATE_LIMIT, which a project without its own follows')
    })

    it('answers 401 without a valid cookie, and 403 to a change without the X-Sessionwatch header', async () => {
      const none = await t.app.inject({ url: '/app/api/projects' })
      assert.equal(none.statusCode, 401)
      assert.equal(json(none).code, 'not_signed_in')
      const forged = await t.app.inject({ url: '/app/api/projects', headers: { cookie: `sw_admin=${String(Date.now() + 1e6)}.${'A'.repeat(43)}` } })
      assert.equal(forged.statusCode, 401)
      const csrf = await t.app.inject({ method: 'POST', url: '/app/api/projects', headers: { cookie }, payload: { name: 'x', domain: 'x.example' } })
      assert.equal(csrf.statusCode, 403)
      assert.equal(json(csrf).code, 'forbidden')
      assert.equal((await call('GET', '/projects')).statusCode, 200)
    })

    it('signing out clears the cookie', async () => {
      const own = String((await signIn(PASSWORD, '10.0.0.5')).headers['set-cookie']).split(';')[0] ?? ''
      const res = await call('DELETE', '/session', undefined, { cookie: own })
      assert.equal(res.statusCode, 204)
      assert.match(String(res.headers['set-cookie']), /^sw_admin=; .*Max-Age=0/)
    })

    it('creates, lists and edits projects, and rotates the API key', async () => {
      const created = await call('POST', '/projects', { name: 'Blog', domain: 'Blog.Example', retentionDays: 14 })
      assert.equal(created.statusCode, 201, created.body)
      const project = json<{ id: string; apiKey: string; ingestKey: string }>(created)
      assert.equal((await t.get('/api/v1/sessions', project.apiKey)).statusCode, 200)
      const listed = json<{ projects: { id: string; domain: string; retentionDays: number; apiKeyPrefix: string; dsn: string }[] }>(await call('GET', '/projects'))
      const row = listed.projects.find((p) => p.id === project.id)
      assert.deepEqual([row?.domain, row?.retentionDays], ['blog.example', 14])
      // The Sentry DSN, on the address the dashboard was reached at (PUBLIC_URL unset): what the API tab shows.
      assert.equal(row?.dsn, `http://${json<{ dsnKey: string }>(created).dsnKey}@localhost:80/${json<{ sentryProjectId: number }>(created).sentryProjectId}`.replace(':80/', '/'))
      assert.equal(json(created).dsn, row.dsn)
      assert.ok(!JSON.stringify(listed).includes(project.apiKey), 'the list never carries an API key')
      const patched = await call('PATCH', `/projects/${project.id}`, { retentionDays: 90, name: 'Blog 2' })
      assert.equal(patched.statusCode, 200, patched.body)
      assert.deepEqual([json(patched).name, json(patched).retentionDays, json(patched).domain], ['Blog 2', 90, 'blog.example'])
      const rotated = json<{ apiKey: string; ingestKey: string }>(await call('POST', `/projects/${project.id}/api-key`))
      assert.equal(rotated.ingestKey, project.ingestKey, 'the ingest key stays')
      assert.equal((await t.get('/api/v1/sessions', project.apiKey)).statusCode, 401)
      assert.equal((await t.get('/api/v1/sessions', rotated.apiKey)).statusCode, 200)
    })

    it('creates an upload key for a project made before upload keys, and replaces it; the API key stays', async () => {
      const old = await t.newProject('Before upload keys')
      // As migration 0017 leaves an existing project: no upload key.
      await t.app.db.updateTable('projects').set({ upload_key_hash: null, upload_key_prefix: null }).where('id', '=', old.id).execute()
      const listed = async () => json<{ projects: { id: string; uploadKeyPrefix: string | null }[] }>(await call('GET', '/projects'))
        .projects.find((p) => p.id === old.id)?.uploadKeyPrefix
      assert.equal(await listed(), null)
      const uploadTo = (key: string) => t.app.inject({
        method: 'POST', url: '/upload/v1/sourcemaps?url=https://shop.example/a.js', payload: '{}', headers: { authorization: `Bearer ${key}` },
      })
      assert.equal((await uploadTo(old.uploadKey)).statusCode, 401, 'the key made before the column was emptied is gone')
      const made = await call('POST', `/projects/${old.id}/upload-key`)
      assert.equal(made.statusCode, 200, made.body)
      const { uploadKey } = json<{ uploadKey: string }>(made)
      assert.match(uploadKey, /^sw_upl_/)
      assert.equal(await listed(), uploadKey.slice(0, 13))
      assert.equal((await uploadTo(uploadKey)).statusCode, 400, 'the key is taken (the empty map is not)')
      const replaced = json<{ uploadKey: string }>(await call('POST', `/projects/${old.id}/upload-key`)).uploadKey
      assert.equal((await uploadTo(uploadKey)).statusCode, 401, 'a replaced key stops working at once')
      assert.equal((await uploadTo(replaced)).statusCode, 400)
      assert.equal((await t.get('/api/v1/sessions', old.apiKey)).statusCode, 200, 'the API key stays')
      assert.equal((await call('POST', '/projects/p_nope/upload-key')).statusCode, 404)
    })

    it('answers 400 naming the problem for bad project fields, and 404 for an unknown project', async () => {
      const bad = await call('POST', '/projects', { name: 'x', domain: 'not a domain' })
      assert.equal(bad.statusCode, 400)
      assert.match(String(json(bad).message), /domain/)
      assert.equal((await call('POST', '/projects', { name: 'x', domain: 'x.example', retentionDays: 0 })).statusCode, 400)
      assert.equal((await call('PATCH', `/projects/${t.project.id}`, {})).statusCode, 400)
      assert.equal((await call('PATCH', '/projects/p_nope', { name: 'y' })).statusCode, 404)
      assert.equal((await call('GET', '/projects/p_nope/sessions')).statusCode, 404)
    })

    it('lists sessions with the errors-only and has-recording filters, and reads one with its recording', async () => {
      const owner = await t.newProject('Filters')
      const ingest = (body: unknown) => t.app.inject({
        method: 'POST', url: '/ingest/v1/batch', payload: body as InjectOptions['payload'], headers: { 'x-ingest-key': owner.ingestKey },
      })
      const broken = json<{ sessionId: string }>(await ingest(batch('dash-broken-1', [{ type: 'ERROR', message: 'x' }])))
      await ingest(batch('dash-calm-1', [{ type: 'CLICK', message: 'ok' }]))
      const recorded = json<{ sessionId: string }>(await ingest(batch('dash-rec-1', [], { recording: [chunkUpload('r0', rrwebEvents(Date.now() - 1000))] })))
      const list = async (q: string) => json<{ total: number; sessions: { id: string }[] }>(
        await call('GET', `/projects/${owner.id}/sessions${q}`))
      assert.equal((await list('')).total, 3)
      // The dashboard's list pages by the read API's cursor too.
      const all = (await list('')).sessions.map((s) => s.id)
      const first = json<{ next: string | null; sessions: { id: string }[] }>(await call('GET', `/projects/${owner.id}/sessions?limit=2`))
      assert.ok(first.next !== null)
      const rest = json<{ next: string | null; offset: number; sessions: { id: string }[] }>(
        await call('GET', `/projects/${owner.id}/sessions?limit=2&after=${first.next}`))
      assert.deepEqual([...first.sessions, ...rest.sessions].map((s) => s.id), all)
      assert.deepEqual([rest.offset, rest.next], [2, null])
      const errors = await list('?errors=true')
      assert.deepEqual([errors.total, errors.sessions.map((s) => s.id)], [1, [broken.sessionId]])
      assert.deepEqual((await list('?recording=true')).sessions.map((s) => s.id), [recorded.sessionId])
      assert.equal((await list('?errors=true&recording=true')).total, 0)
      assert.equal((await call('GET', `/projects/${owner.id}/sessions?limit=0`)).statusCode, 400)
      // The read API's search parameters, validated by the same schema: a bad value is a 400 naming it.
      const bad = await call('GET', `/projects/${owner.id}/sessions?status=abc`)
      assert.deepEqual([bad.statusCode, json<{ code: string; message: string }>(bad).message.includes('status')], [400, true])
      const typed = await list('?type=ERROR&errors=true')
      assert.deepEqual(typed.sessions.map((s) => s.id), [broken.sessionId])
      assert.equal(json<{ sessions: { firstError: { message: string } | null }[] }>(await call('GET', `/projects/${owner.id}/sessions?errors=true`))
        .sessions[0]?.firstError?.message, 'x', 'a row carries its first error')
      const detail = await call('GET', `/projects/${owner.id}/sessions/${recorded.sessionId}`)
      assert.deepEqual(json<{ session: { recording: unknown } }>(detail).session.recording, { available: true, chunks: 1 })
      const rec = await call('GET', `/projects/${owner.id}/sessions/${recorded.sessionId}/recording`)
      assert.equal(json<{ chunks: unknown[] }>(rec).chunks.length, 1)
      const chunk = await call('GET', `/projects/${owner.id}/sessions/${recorded.sessionId}/recording/chunks/r0`)
      assert.equal(chunk.json<unknown[]>().length, 5)
      // A session is only found under its own project.
      assert.equal((await call('GET', `/projects/${t.project.id}/sessions/${recorded.sessionId}`)).statusCode, 404)
    })

    it('serves the pages report of the project in the path, as the read API does', async () => {
      const own = await t.newProject('Pages')
      await t.app.inject({
        method: 'POST', url: '/ingest/v1/batch', headers: { 'x-ingest-key': own.ingestKey },
        payload: batch('dash-pages-1', [{ type: 'NAVIGATION', url: 'https://shop.example/orders/42' },
          { type: 'WEB_VITAL', name: 'LCP', value: 4200, url: 'https://shop.example/orders/42' }]),
      })
      const dashboard = await call('GET', `/projects/${own.id}/pages?sort=lcp`)
      assert.equal(dashboard.statusCode, 200, dashboard.body)
      assert.deepEqual(json(dashboard), json(await t.get('/api/v1/pages?sort=lcp', own.apiKey)))
      assert.deepEqual(json<{ pages: { url: string; lcp: { p75: number } }[] }>(dashboard).pages.map((p) => [p.url, p.lcp.p75]),
        [['https://shop.example/orders/:id', 4500]])
      assert.equal(json<{ total: number }>(await call('GET', `/projects/${t.project.id}/pages`)).total, 0, 'another project\'s pages are its own')
      const bad = await call('GET', `/projects/${own.id}/pages?sort=fastest`)
      assert.deepEqual([bad.statusCode, json<{ message: string }>(bad).message.includes('sort')], [400, true])
    })

    it('adds, lists and removes webhooks, refusing bad URLs with 400 naming the problem', async () => {
      const owner = await t.newProject('Hooks')
      const base = `/projects/${owner.id}/webhooks`
      const added = await call('POST', base, { url: 'https://hooks.slack.com/services/T0/B0/secret' })
      assert.equal(added.statusCode, 201, added.body)
      const { secret, ...hook } = json<{ id: string; url: string; createdAt: string; secret: string }>(added)
      assert.deepEqual(Object.keys(hook), ['id', 'url', 'createdAt'])
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'the signing secret, in the add answer only')
      assert.deepEqual(json(await call('GET', base)), { webhooks: [hook] })
      for (const [url, why] of [['ftp://example.com/x', /url must use http or https, not ftp/], ['https://u:p@example.com/', /credentials/],
        ['http://127.0.0.1:9000/', /127\.0\.0\.1 is a loopback address/], ['http://localhost/', /this machine/],
        [hook.url, /already a webhook of this project/]] as const) {
        const bad = await call('POST', base, { url })
        assert.equal(bad.statusCode, 400, url)
        assert.deepEqual([json(bad).code, json(bad).parameter], ['invalid_body', 'url'])
        assert.match(String(json(bad).message), why)
      }
      assert.equal((await call('POST', base, {})).statusCode, 400)
      assert.equal((await call('GET', '/projects/p_nope/webhooks')).statusCode, 404)
      assert.equal((await t.app.inject({ url: `/app/api${base}` })).statusCode, 401, 'signed in only')
      assert.equal((await t.app.inject({ method: 'POST', url: `/app/api${base}`, headers: { cookie }, payload: { url: 'https://x.example/' } })).statusCode, 403)
      assert.equal((await call('DELETE', `${base}/${hook.id}`)).statusCode, 204)
      assert.equal((await call('DELETE', `${base}/${hook.id}`)).statusCode, 404)
      assert.deepEqual(json(await call('GET', base)), { webhooks: [] })
    })

    it('shows the latest deliveries with the issue title as it came', async () => {
      const owner = await t.newProject('Log')
      // Planted, since adding refuses a loopback URL: the worker refuses it again when connecting.
      await insertWebhook(t.app.db, { project_id: owner.id, id: 'wh_log', url: 'http://127.0.0.1:9/hook', secret: newWebhookSecret(), created_at: Date.now() })
      const alert = issueAlert(owner.id, { kind: 'regression', issue: { title: '<img src=x onerror=alert(1)>' } })
      await enqueueCommitted(t.app.db, alert)
      const log = json<{ deliveries: Record<string, unknown>[] }>(await call('GET', `/projects/${owner.id}/webhooks/deliveries`))
      assert.equal(log.deliveries.length, 1)
      const [delivery] = log.deliveries
      assert.deepEqual([delivery?.webhookId, delivery?.kind, delivery?.issue], ['wh_log', 'regression', { id: alert.issue.id, title: '<img src=x onerror=alert(1)>' }])
      assert.ok(delivery?.status === 'pending' || delivery?.status === 'failed')
      assert.equal(typeof delivery.createdAt, 'string')
      assert.equal((await call('GET', '/projects/p_nope/webhooks/deliveries')).statusCode, 404)
    })

    it('serves the page with a CSP that allows only its own scripts', async () => {
      const res = await t.app.inject({ url: '/app' })
      assert.equal(res.statusCode, 200)
      assert.match(String(res.headers['content-security-policy']), /script-src 'self'(;|$)/)
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/)
      const js = await t.app.inject({ url: '/app/app.js' })
      assert.equal(js.statusCode, 200)
    })
  })
}
