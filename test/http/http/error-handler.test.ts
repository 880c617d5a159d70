import assert from 'node:assert/strict'
import net, { type AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { describeAllowed } from '../../../src/http/error-handler.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { realHttp } from '../../helpers/http.ts'

describe('describeAllowed', () => {
  it('puts a parameter\'s schema into words', () => {
    assert.equal(describeAllowed({ type: 'integer', minimum: 1, maximum: 200 }), 'an integer from 1 to 200')
    assert.equal(describeAllowed({ type: 'integer', minimum: 0 }), 'an integer, 0 or more')
    assert.equal(describeAllowed({ type: 'string', format: 'date' }), 'a calendar date YYYY-MM-DD')
    const tooLong = { instancePath: '/release', schemaPath: '#/properties/release/maxLength', keyword: 'maxLength', params: {} }
    assert.equal(describeAllowed({ type: 'string', minLength: 1, maxLength: 200 }, tooLong), '1 to 200 characters')
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
  it('answers what cannot be parsed or routed with a stable code, never a bare framework error', async () => {
    for (const url of ['/api/v1/sessions/%zz', '/%zz']) {
      const res = await t.app.inject({ url, headers: { authorization: `Bearer ${t.project.apiKey}` } })
      assert.equal(res.statusCode, 400, url)
      assert.equal(json(res).code, 'malformed_request', url)
      assert.match(String(json(res).message), /%/)
    }
    const send = await realHttp(t.app)
    const huge = await send('GET', '/healthz', { 'x-padding': 'x'.repeat(20_000) })
    assert.equal(huge.status, 431)
    assert.equal(huge.json().code, 'headers_too_large')
    // Broken HTTP straight onto the socket: a request line Node's parser cannot read.
    const { port } = t.app.server.address() as AddressInfo
    const raw = await new Promise<string>((resolve, reject) => {
      let text = ''
      const socket = net.connect(port, '127.0.0.1', () => { socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n') })
      socket.setEncoding('utf8').on('data', (d: string) => { text += d }).on('close', () => { resolve(text) }).on('error', reject)
    })
    assert.match(raw, /^HTTP\/1\.1 400 /)
    assert.equal((JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { code: string }).code, 'malformed_request')
  })
  it('answers a wrong method with a JSON error', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/v1/sessions' })
    assert.equal(res.statusCode, 404)
    assert.equal(json(res).code, 'route_not_found')
  })
})

