import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_MASK_FIELD_LENGTH, MAX_MASK_FIELDS } from '../../../../common/limits.ts'
import { bodyFilter, inputMasked, maskFieldsOf, requestEvent, type RequestOptions } from '../../../../browser/sdk/privacy.ts'

const page = () => 'https://shop.example/cart'
const options = (networkBodies: unknown, maskFields?: unknown): RequestOptions => ({
  slowThresholdMs: 1000, maxBodyChars: 4096, bodies: bodyFilter(networkBodies, page), maskFields: maskFieldsOf(maskFields),
})
const login = '{"email":"ann@example.com","password":"hunter2","nickname":"annie"}'
const failed = (opts: RequestOptions, url: string, reqBody: unknown = login, resBody: string | null = '{"error":"denied"}') =>
  requestEvent(opts, url, 'POST', 401, 12, reqBody, resBody)

describe('SDK networkBodies and maskFields', () => {
  it('failed (the default) keeps the bodies of every failed request, masked', () => {
    for (const opts of [options(undefined), options('failed')]) {
      assert.deepEqual(failed(opts, '/api/login'), {
        type: 'HTTP_ERROR', url: '/api/login', method: 'POST', statusCode: 401, durationMs: 12,
        reqBody: '{"email":"ann@example.com","password":"***","nickname":"annie"}', resBody: '{"error":"denied"}',
      })
    }
    assert.equal(requestEvent(options('failed'), '/api/x', 'GET', null, 5, 'a=1', null)?.reqBody, 'a=1', 'a network failure too')
    assert.equal(requestEvent(options('failed'), '/api/x', 'GET', 200, 5, 'a=1', 'ok'), null, 'a fast success is no event')
    assert.deepEqual(requestEvent(options('failed'), '/api/x', 'GET', 200, 1500, 'a=1', 'ok'), {
      type: 'SLOW_REQUEST', url: '/api/x', method: 'GET', statusCode: 200, durationMs: 1500,
    }, 'a slow success: never a body')
  })

  it('none keeps no body ever; an unknown value errs on the same side', () => {
    for (const value of ['none', 'all', true, false, null, 42, { include: ['/api'] }]) {
      const event = failed(options(value), 'https://shop.example/api/login')
      assert.equal(event?.type, 'HTTP_ERROR', JSON.stringify(value))
      assert.equal(event.reqBody, null, `${JSON.stringify(value)}: reqBody`)
      assert.equal(event.resBody, null, `${JSON.stringify(value)}: resBody`)
    }
  })

  it('a list of patterns keeps the bodies of failed requests whose URL contains a string or matches an expression', () => {
    const opts = options(['/api/checkout', /\/graphql\b/g, 'https://payments.example/', '', 42, null])
    const kept = (url: string) => failed(opts, url)?.reqBody !== null
    assert.equal(kept('/api/checkout/pay'), true, 'a substring')
    assert.equal(kept('https://shop.example/api/checkout'), true)
    assert.equal(kept('/graphql?op=Cart'), true, 'a regular expression')
    assert.equal(kept('/graphql?op=Cart'), true, 'a /g expression matches again (no lastIndex carried over)')
    assert.equal(kept('https://payments.example/v1/charge'), true, 'an origin')
    assert.equal(kept('/api/login'), false, 'no pattern matches: no bodies (an empty string is no pattern)')
    assert.equal(kept('https://cdn.example/graphqlish'), false)
    assert.equal(failed(opts, '/api/login')?.resBody, null)
    // Relative URLs are matched as the absolute URL they name.
    assert.equal(failed(options(['https://shop.example/api/']), '/api/login')?.resBody, '{"error":"denied"}')
    assert.equal(failed(options(['https://other.example/']), '/api/login')?.resBody, null)
    assert.equal(failed(options([]), '/api/login')?.reqBody, null, 'an empty list keeps none')
  })

  it('maskFields masks further JSON keys and form fields in both bodies, on top of the built-in list', () => {
    const opts = options('failed', ['nickname', 'Email'])
    assert.equal(failed(opts, '/api/login')?.reqBody, '{"email":"***","password":"***","nickname":"***"}')
    assert.equal(failed(opts, '/api/login', 'email=ann%40example.com&nickname=annie&city=Oslo')?.reqBody, 'email=***&nickname=***&city=Oslo')
    assert.equal(failed(opts, '/api/login', login, '{"user":{"nickname":"annie","id":7}}')?.resBody, '{"user":{"nickname":"***","id":7}}')
    // A cut JSON body no longer parses: masked by pattern, before it is cut.
    const long = `{"nickname":"annie","pad":"${'x'.repeat(100)}"`
    assert.equal(failed({ ...opts, maxBodyChars: 40 }, '/api/login', long)?.reqBody, `{"nickname":"***","pad":"${'x'.repeat(100)}"`.slice(0, 40))
    assert.equal(failed(options('failed'), '/api/login')?.reqBody, '{"email":"ann@example.com","password":"***","nickname":"annie"}', 'without maskFields, only the built-in list')
  })

  it('keeps at most MAX_MASK_FIELDS names of 1 to MAX_MASK_FIELD_LENGTH characters', () => {
    const long = 'f'.repeat(MAX_MASK_FIELD_LENGTH + 1)
    assert.deepEqual(maskFieldsOf(['a', '', long, 'f'.repeat(MAX_MASK_FIELD_LENGTH), 7, null, 'b']), ['a', 'f'.repeat(MAX_MASK_FIELD_LENGTH), 'b'])
    const names = Array.from({ length: MAX_MASK_FIELDS + 5 }, (_, i) => `field${i}`)
    assert.deepEqual(maskFieldsOf(names), names.slice(0, MAX_MASK_FIELDS))
    for (const value of [undefined, null, 'nickname', { nickname: true }]) assert.deepEqual(maskFieldsOf(value), [])
    assert.equal(failed(options('failed', [long]), '/api/x', `{"${long}":"secret"}`)?.reqBody, `{"${long}":"secret"}`, 'a name over the limit is not used')
  })

  it('INPUT values: masked with maskInputs, for passwords, and for fields named in maskFields or the built-in list', () => {
    const fields = ['nickname', 'Coupon']
    assert.equal(inputMasked({ type: 'text', name: 'city', id: '' }, true, fields), true)
    assert.equal(inputMasked({ type: 'text', name: 'city', id: '' }, false, fields), false)
    assert.equal(inputMasked({ type: 'password', name: 'x', id: '' }, false, fields), true)
    assert.equal(inputMasked({ type: 'text', name: 'nickname', id: '' }, false, fields), true, 'by name')
    assert.equal(inputMasked({ type: 'text', name: '', id: 'coupon' }, false, fields), true, 'by id, without regard to case')
    assert.equal(inputMasked({ type: 'text', name: 'api_token', id: '' }, false, []), true, 'the built-in list')
    assert.equal(inputMasked({ type: 'select-one' }, false, fields), false, 'an element without name or id')
  })
})
