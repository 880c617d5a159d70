import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { InjectOptions } from 'fastify'
import { MAX_MASK_FIELD_LENGTH, MAX_MASK_FIELDS } from '../../../common/limits.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'

const PASSWORD = 'dashboard privacy password'

type Summary = { id: string; ipStorage: string | null; maskFields: string[] }
type Erased = { erased: number; note: string | null }

for (const engine of testEngines()) {
  describe(`dashboard: privacy settings and erasure [${engine}]`, () => {
    let t: TestApp
    let cookie: string
    before(async () => {
      t = await startTestApp(engine, { ADMIN_PASSWORD: PASSWORD, IP_STORAGE: 'truncated' })
      const res = await t.app.inject({ method: 'POST', url: '/app/api/session', payload: { password: PASSWORD }, headers: { 'x-sessionwatch': '1' } })
      cookie = String(res.headers['set-cookie']).split(';')[0] ?? ''
    })
    after(() => t.close())

    const call = (method: InjectOptions['method'], url: string, payload?: unknown, headers: Record<string, string> = { cookie, 'x-sessionwatch': '1' }) =>
      t.app.inject({ method, url: `/app/api${url}`, headers, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) })
    const erase = (projectId: string, body: unknown) => call('POST', `/projects/${projectId}/erase`, body)
    /** One visit of `user` from `ip` (the default project follows IP_STORAGE=truncated: set to full below). */
    async function visit(key: string, ip: string, user?: string): Promise<string> {
      const res = await t.ingest(batch(key, [{ type: 'ERROR', message: 'boom' }], user === undefined ? {} : { user: { id: user } }), { remoteAddress: ip })
      assert.equal(res.statusCode, 200, res.body)
      return json<{ sessionId: string }>(res).sessionId
    }

    it('lists each project\'s IP storage and masked fields with the server\'s default, and changes them', async () => {
      const listed = json<{ projects: Summary[]; defaults: { ipStorage: string } }>(await call('GET', '/projects'))
      assert.deepEqual(listed.defaults, { ipStorage: 'truncated', ingestRateLimit: 1000, demo: false })
      assert.deepEqual(listed.projects.map((p) => [p.ipStorage, p.maskFields]), [[null, []]])
      const patched = await call('PATCH', `/projects/${t.project.id}`, { ipStorage: 'full', maskFields: [' iban ', 'IBAN', 'birth_date'] })
      assert.equal(patched.statusCode, 200, patched.body)
      assert.deepEqual([json(patched).ipStorage, json(patched).maskFields], ['full', ['iban', 'birth_date']], 'trimmed, each name once')
      const created = await call('POST', '/projects', { name: 'Anon', domain: 'anon.example', ipStorage: 'none', maskFields: ['phone'] })
      assert.equal(created.statusCode, 201, created.body)
      const anon = json<{ projects: Summary[] }>(await call('GET', '/projects')).projects.find((p) => p.id === json(created).id)
      assert.deepEqual([anon?.ipStorage, anon?.maskFields], ['none', ['phone']])
      const reset = await call('PATCH', `/projects/${json(created).id as string}`, { ipStorage: null, maskFields: [] })
      assert.deepEqual([json(reset).ipStorage, json(reset).maskFields], [null, []], 'null follows the server again; [] clears')
    })

    it('refuses bad privacy settings with a 400 naming the problem and what is allowed', async () => {
      const bad = async (body: unknown, message: RegExp) => {
        const res = await call('PATCH', `/projects/${t.project.id}`, body)
        assert.equal(res.statusCode, 400, res.body)
        assert.match(String(json(res).message), message)
      }
      await bad({ ipStorage: 'hashed' }, /ipStorage must be one of "full", "truncated", "none", null/)
      await bad({ maskFields: Array.from({ length: MAX_MASK_FIELDS + 1 }, (_, i) => `f${i}`) }, new RegExp(`maskFields must NOT have more than ${MAX_MASK_FIELDS} items`))
      await bad({ maskFields: ['ok', 'x'.repeat(MAX_MASK_FIELD_LENGTH + 1)] }, new RegExp(`maskFields\\[1\\] must NOT have more than ${MAX_MASK_FIELD_LENGTH} characters`))
      await bad({ maskFields: ['ok', 'a,b'] }, /maskFields\[1\] "a,b" must not contain commas or control characters/)
      await bad({ maskFields: ['ok', '  '] }, /maskFields\[1\] must be a field name of 1 to 64 characters \(got an empty one\)/)
      const project = json<{ projects: Summary[] }>(await call('GET', '/projects')).projects.find((p) => p.id === t.project.id)
      assert.deepEqual(project?.maskFields, ['iban', 'birth_date'], 'nothing of a refused change is stored')
    })

    it('erases one visit: getSession answers 404 after, on the dashboard and the API, and a second erase finds nothing', async () => {
      const id = await visit('erase-one-visit', '203.0.113.7')
      const kept = await visit('erase-other-visit', '203.0.113.7')
      assert.equal((await call('GET', `/projects/${t.project.id}/sessions/${id}`)).statusCode, 200)
      const res = await erase(t.project.id, { sessionId: id })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(json<Erased>(res), { erased: 1, note: null })
      assert.equal((await call('GET', `/projects/${t.project.id}/sessions/${id}`)).statusCode, 404)
      assert.equal((await t.get(`/api/v1/sessions/${id}`)).statusCode, 404)
      assert.equal((await call('GET', `/projects/${t.project.id}/sessions/${id}/recording`)).statusCode, 404)
      assert.equal((await t.get(`/api/v1/sessions/${kept}`)).statusCode, 200, 'the other visit stays')
      assert.deepEqual(json<Erased>(await erase(t.project.id, { sessionId: id })), { erased: 0, note: null })
    })

    it('erases every visit of a user, and every visit from an address', async () => {
      const alice = [await visit('erase-alice-1', '198.51.100.1', 'alice'), await visit('erase-alice-2', '198.51.100.2', 'alice')]
      const bob = await visit('erase-bob-1', '198.51.100.1', 'bob')
      assert.deepEqual(json<Erased>(await erase(t.project.id, { userId: 'alice' })).erased, 2)
      for (const id of alice) assert.equal((await t.get(`/api/v1/sessions/${id}`)).statusCode, 404)
      assert.equal((await t.get(`/api/v1/sessions/${bob}`)).statusCode, 200)
      const v6 = await visit('erase-v6-1', '2001:db8::7')
      assert.deepEqual(json<Erased>(await erase(t.project.id, { ip: '2001:DB8:0::7' })), { erased: 1, note: null }, 'typed in any spelling of the address')
      assert.equal((await t.get(`/api/v1/sessions/${v6}`)).statusCode, 404)
      assert.equal(json<Erased>(await erase(t.project.id, { ip: '198.51.100.1' })).erased, 1)
      assert.equal((await t.get(`/api/v1/sessions/${bob}`)).statusCode, 404)
    })

    it('a truncating project matches the stored network, and says so when a full address matches nothing', async () => {
      const created = json<{ id: string; ingestKey: string; apiKey: string }>(await call('POST', '/projects', { name: 'Net', domain: 'net.example' }))
      const res = await t.ingest(batch('erase-net-1', [{ type: 'CLICK', message: 'a' }]), { remoteAddress: '203.0.113.77', headers: { 'x-ingest-key': created.ingestKey } })
      const id = json<{ sessionId: string }>(res).sessionId
      const full = json<Erased>(await erase(created.id, { ip: '203.0.113.77' }))
      assert.equal(full.erased, 0)
      assert.match(full.note ?? '', /stored as 203\.0\.113\.0.*Erasing 203\.0\.113\.0 deletes all of them/)
      assert.deepEqual(json<Erased>(await erase(created.id, { ip: '203.0.113.0' })), { erased: 1, note: null })
      assert.equal((await t.get(`/api/v1/sessions/${id}`, created.apiKey)).statusCode, 404)
    })

    it('refuses a request without exactly one valid selector, for an unknown project, without sign-in or the change header', async () => {
      const refused = async (body: unknown, code: string, message: RegExp, projectId = t.project.id) => {
        const res = await erase(projectId, body)
        assert.equal(json(res).code, code, res.body)
        assert.match(String(json(res).message), message)
        return res.statusCode
      }
      assert.equal(await refused({}, 'invalid_body', /exactly one of sessionId, ip and userId \(got none\)/), 400)
      assert.equal(await refused({ sessionId: 's', userId: 'u' }, 'invalid_body', /got sessionId and userId/), 400)
      assert.equal(await refused({ ip: '203.0.113' }, 'invalid_body', /ip must be an IPv4 or IPv6 address/), 400)
      assert.equal(await refused({ userId: '' }, 'invalid_body', /userId must NOT have fewer than 1 characters/), 400)
      assert.equal(await refused({ userId: 'u' }, 'not_found', /No project with id "p_nope"/, 'p_nope'), 404)
      const unsigned = await call('POST', `/projects/${t.project.id}/erase`, { userId: 'u' }, { 'x-sessionwatch': '1' })
      assert.deepEqual([unsigned.statusCode, json(unsigned).code], [401, 'not_signed_in'])
      const forged = await call('POST', `/projects/${t.project.id}/erase`, { userId: 'u' }, { cookie })
      assert.deepEqual([forged.statusCode, json(forged).code], [403, 'forbidden'])
    })
  })
}
