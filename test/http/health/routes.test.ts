import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buildApp } from '../../../src/app.ts'
import { loadConfig } from '../../../src/config.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { createTestDatabase } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'

for (const engine of testEngines()) {
  describe(`GET /healthz [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())

    it('answers 200 without a key when the database answers', async () => {
      const res = await t.app.inject({ url: '/healthz' })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(json(res), { status: 'ok', database: 'ok', storage: 'ok', engine })
    })
  })
}

describe('GET /healthz with the database gone', { skip: testEngines().includes('postgres') ? false : 'needs PostgreSQL' }, () => {
  it('answers 503 and keeps the process alive', async () => {
    const database = await createTestDatabase('postgres')
    const app = await buildApp({ config: loadConfig({ DATABASE_URL: database.url, RETENTION_SWEEP_SECONDS: '0' }) })
    assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200)
    await database.cleanup() // drops the database, killing the pool's connections
    const res = await app.inject({ url: '/healthz' })
    assert.equal(res.statusCode, 503)
    assert.deepEqual(json(res), { status: 'unavailable', database: 'unreachable', storage: 'ok', engine: 'postgres' })
    const api = await app.inject({ url: '/api/v1/sessions', headers: { authorization: 'Bearer sw_api_x' } })
    assert.equal(api.statusCode, 503, 'an outage, not a bug: clients should retry')
    assert.equal(json(api).code, 'service_unavailable')
    assert.equal(api.headers['retry-after'], '5')
    await app.close()
  })
})
