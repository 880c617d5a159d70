import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { rotateKeys } from '../../../src/projects/service.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'
import { realHttp } from '../../helpers/http.ts'

for (const engine of testEngines()) {
  describe(`API key authentication [${engine}]`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(engine)
      await t.ingest(batch('auth-session-1', [{ type: 'ERROR', message: 'x' }]))
    })
    after(() => t.close())

    const paths = ['/api/v1/sessions', '/api/v1/sessions/some-id']
    for (const path of paths) {
      it(`answers 401 with WWW-Authenticate and a JSON body without a key: ${path}`, async () => {
        const res = await t.app.inject({ method: 'GET', url: path })
        assert.equal(res.statusCode, 401)
        assert.match(String(res.headers['www-authenticate']), /^Bearer /)
        assert.equal(json(res).code, 'missing_api_key')
      })
      it(`answers 401 for a wrong key: ${path}`, async () => {
        const res = await t.get(path, 'sw_api_wrong')
        assert.equal(res.statusCode, 401)
        assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/)
        assert.equal(json(res).code, 'invalid_api_key')
      })
    }

    it('takes the key as Authorization: Bearer', async () => {
      const res = await t.app.inject({ url: '/api/v1/sessions', headers: { authorization: `Bearer ${t.project.apiKey}` } })
      assert.equal(res.statusCode, 200)
      assert.equal(json<{ total: number }>(res).total, 1)
    })

    it('takes the key as X-Api-Key', async () => {
      const res = await t.app.inject({ url: '/api/v1/sessions', headers: { 'x-api-key': t.project.apiKey } })
      assert.equal(res.statusCode, 200)
    })

    // Real HTTP: inject joins repeated headers into one, and Node keeps only the first Authorization.
    it('takes one key sent in both headers or twice, and refuses different keys even when one is valid', async () => {
      const send = await realHttp(t.app)
      const key = t.project.apiKey
      const other = (await t.newProject('Second')).apiKey
      const same: Record<string, string | string[]>[] = [{ authorization: `Bearer ${key}`, 'x-api-key': key }, { authorization: [`Bearer ${key}`, `bearer ${key}`] }]
      for (const headers of same) assert.equal((await send('GET', '/api/v1/sessions', headers)).status, 200, JSON.stringify(headers))
      const different: Record<string, string | string[]>[] = [
        { authorization: [`Bearer ${key}`, `Bearer ${other}`] }, { authorization: [`Bearer ${key}`, 'Bearer sw_api_wrong'] },
        { authorization: `Bearer ${key}`, 'x-api-key': other }, { authorization: 'Bearer sw_api_wrong', 'x-api-key': key },
        { 'x-api-key': [key, other] },
      ]
      for (const headers of different) {
        const res = await send('GET', '/api/v1/sessions', headers)
        assert.equal(res.status, 401, JSON.stringify(headers))
        assert.equal(res.json().code, 'invalid_api_key')
        assert.match(String(res.json().message), /exactly one API key/)
      }
    })

    it('refuses another Authorization scheme and an empty Bearer', async () => {
      for (const authorization of [`Basic ${t.project.apiKey}`, 'Bearer ', t.project.apiKey]) {
        const res = await t.app.inject({ url: '/api/v1/sessions', headers: { authorization } })
        assert.equal(res.statusCode, 401, authorization)
      }
    })

    it('refuses the ingest key on the read API', async () => {
      const res = await t.get('/api/v1/sessions', t.project.ingestKey)
      assert.equal(res.statusCode, 401)
    })

    it('checks the key before the parameters', async () => {
      const res = await t.app.inject({ url: '/api/v1/sessions?limit=0' })
      assert.equal(res.statusCode, 401)
    })

    it('stops accepting a rotated key at once', async () => {
      const other = await t.newProject('Rotating')
      const rotated = await rotateKeys(t.app.db, other.id, { ingest: false })
      assert.equal((await t.get('/api/v1/sessions', other.apiKey)).statusCode, 401)
      assert.equal((await t.get('/api/v1/sessions', rotated.apiKey)).statusCode, 200)
      assert.equal(rotated.ingestKey, other.ingestKey, 'the ingest key stays unless asked')
    })

    it('stores keys only as hashes', async () => {
      const rows = await t.app.db.selectFrom('projects').selectAll().execute()
      const dump = JSON.stringify(rows)
      assert.ok(!dump.includes(t.project.apiKey), 'the API key itself is not stored')
      assert.ok(rows.every((r) => /^[0-9a-f]{64}$/.test(r.api_key_hash)))
    })
  })
}
