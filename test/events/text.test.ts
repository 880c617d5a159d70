import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isSensitiveKey, maskSecrets, truncate } from '../../src/events/text.ts'

describe('truncate', () => {
  it('leaves short text alone', () => {
    assert.equal(truncate('hello', 5), 'hello')
  })
  it('cuts long text to the limit, ending with a marker that counts what is missing', () => {
    const out = truncate('x'.repeat(10_000), 100)
    assert.equal(out.length, 100)
    const m = /…\[truncated (\d+) chars\]$/.exec(out)
    assert.ok(m)
    assert.equal(out.length - m[0].length + Number(m[1]), 10_000, 'kept + dropped = original')
  })
  it('is idempotent', () => {
    const once = truncate('y'.repeat(500), 64)
    assert.equal(truncate(once, 64), once)
  })
})

describe('isSensitiveKey', () => {
  it('matches password-like names in any case and style', () => {
    for (const k of ['password', 'Password', 'user_password', 'newPassword', 'passwd', 'pwd', 'secret', 'clientSecret',
      'token', 'access_token', 'refreshToken', 'api_key', 'apiKey', 'Authorization', 'pass', 'pin', 'cvv', 'card_number']) {
      assert.ok(isSensitiveKey(k), k)
    }
  })
  it('leaves ordinary names alone', () => {
    for (const k of ['user', 'email', 'passenger', 'shipping', 'compass', 'author', 'spinner', 'name']) {
      assert.ok(!isSensitiveKey(k), k)
    }
  })
})

describe('maskSecrets', () => {
  it('masks JSON values at any depth and keeps the rest', () => {
    const out = maskSecrets('{"user":"ann","password":"p","profile":{"token":"t","nick":"a"},"list":[{"secret":1}]}')
    assert.deepEqual(JSON.parse(out), { user: 'ann', password: '***', profile: { token: '***', nick: 'a' }, list: [{ secret: '***' }] })
  })
  it('masks a secret whose value is an object or a number', () => {
    assert.deepEqual(JSON.parse(maskSecrets('{"credentials":{"u":"a","p":"b"},"pin":1234}')), { credentials: '***', pin: '***' })
  })
  it('returns a body without secrets byte for byte', () => {
    const body = '{ "user" : "ann",\n "n": 1 }'
    assert.equal(maskSecrets(body), body)
  })
  it('masks URL-encoded form fields, encoded names included', () => {
    assert.equal(maskSecrets('user=ann&password=hunter2&remember=1'), 'user=ann&password=***&remember=1')
    assert.equal(maskSecrets('user%5Bpassword%5D=x&a=b'), 'user%5Bpassword%5D=***&a=b')
  })
  it('masks "key": value pairs in text that does not parse, such as a cut JSON body', () => {
    const cut = '{"user":"ann","password":"hunter2","bio":"long…[truncated 10 chars]'
    assert.equal(maskSecrets(cut), '{"user":"ann","password":"***","bio":"long…[truncated 10 chars]')
    assert.equal(maskSecrets('{"token": 12345, "x": 1'), '{"token": "***", "x": 1')
  })
  it('is idempotent', () => {
    const once = maskSecrets('{"password":"a"}')
    assert.equal(maskSecrets(once), once)
  })
  it('leaves plain text alone', () => {
    assert.equal(maskSecrets('just some text = not a form'), 'just some text = not a form')
  })
})
