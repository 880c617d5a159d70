import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { describeAllowed } from '../../src/http/error-handler.ts'
import { json, startTestApp, type TestApp } from '../helpers/app.ts'
import { realHttp } from '../helpers/http.ts'

describe('describeAllowed', () => {
  it('puts a parameter\'s schema into words', () => {
    assert.equal(describeAllowed({ type: 'integer', minimum: 1, maximum: 200 }), 'an integer from 1 to 200')
    assert.equal(describeAllowed({ type: 'integer', minimum: 0 }), 'an integer, 0 or more')
    assert.equal(describeAllowed({ type: 'string', format: 'date' }), 'a calendar date YYYY-MM-DD')
  })
})

describe('error handler', () => {
  let t: TestApp
  before(async () => { t = await startTestApp('sqlite') })
  after(() => t.close())

  it('answers unknown routes with a JSON 404', async () => {
    const res = await t.app.inject({ url: '/api/v2/sessions' })
    assert.equal(res.statusCode, 404)
    assert.deepEqual(Object.keys(json(res)), ['statusCode', 'error', 'code', 'message'])
    assert.equal(json(res).code, 'route_not_found')
  })
  it('answers unknown methods with the JSON 404 of a missing route, over real HTTP', async () => {
    const send = await realHttp(t.app)
    // QUERY and PROPFIND reach the router (QUERY, a body method, used to fail on its missing
    // Content-Type as invalid_body); FOO is refused by Node's parser before any route is looked up.
    for (const method of ['QUERY', 'PROPFIND', 'FOO']) {
      const res = await send(method, '/healthz')
      assert.equal(res.status, 404, `${method}: ${res.body}`)
      assert.equal(res.json().code, 'route_not_found', method)
    }
    const badJson = await send('POST', '/nope', { 'content-type': 'application/json' }, '{not json')
    assert.equal(badJson.json().code, 'route_not_found')
  })
  it('answers a wrong method with a JSON error', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/v1/sessions' })
    assert.equal(res.statusCode, 404)
    assert.equal(json(res).code, 'route_not_found')
  })
})

