import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isSensitiveKey, scrub } from '../../../common/scrub.ts'
import { timed } from '../../helpers/budget.ts'

describe('isSensitiveKey', () => {
  it('matches password-like names in any case and style', () => {
    for (const k of ['password', 'Password', 'user_password', 'newPassword', 'passwd', 'pwd', 'secret', 'clientSecret',
      'token', 'access_token', 'refreshToken', 'api_key', 'apiKey', 'Authorization', 'pass', 'pin', 'cvv', 'card_number',
      'jwt', 'sessionid', 'session', 'refresh', 'refresh_token', 'cookie', 'set-cookie', 'Set-Cookie', 'X-Api-Key', 'x_csrftoken',
      'PHPSESSID', 'connect.sid', 'mysql_pwd', 'private_key', 'credentials', 'XSRF-TOKEN']) {
      assert.ok(isSensitiveKey(k), k)
    }
  })
  it('leaves ordinary names alone', () => {
    for (const k of ['user', 'email', 'passenger', 'shipping', 'compass', 'author', 'spinner', 'name', 'sessionCount', 'code', 'key']) {
      assert.ok(!isSensitiveKey(k), k)
    }
  })
  it('takes code, sig, signature and key as secret only in a query string, a fragment or a form', () => {
    for (const k of ['code', 'sig', 'signature', 'key']) assert.ok(isSensitiveKey(k, [], true) && !isSensitiveKey(k), k)
  })
  it('adds the project\'s own field names, in any case', () => {
    assert.ok(isSensitiveKey('IBAN', ['iban']) && !isSensitiveKey('IBAN'))
  })
})

describe('scrub: JSON bodies and forms', () => {
  it('masks JSON values at any depth and keeps the rest', () => {
    const out = scrub('{"user":"ann","password":"p","profile":{"token":"t","nick":"a"},"list":[{"secret":1}]}')
    assert.deepEqual(JSON.parse(out), { user: 'ann', password: '***', profile: { token: '***', nick: 'a' }, list: [{ secret: '***' }] })
  })
  it('masks a secret whose value is an object or a number', () => {
    assert.deepEqual(JSON.parse(scrub('{"credentials":{"u":"a","p":"b"},"pin":1234}')), { credentials: '***', pin: '***' })
  })
  it('returns a body without secrets byte for byte', () => {
    const body = '{ "user" : "ann",\n "n": 1 }'
    assert.equal(scrub(body), body)
  })
  it('masks URL-encoded form fields, encoded names included', () => {
    assert.equal(scrub('user=ann&password=hunter2&remember=1'), 'user=ann&password=***&remember=1')
    assert.equal(scrub('user%5Bpassword%5D=x&a=b'), 'user%5Bpassword%5D=***&a=b')
  })
  it('masks "key": value pairs in text that does not parse, such as a cut JSON body', () => {
    const cut = '{"user":"ann","password":"hunter2","bio":"long…[truncated 10 chars]'
    assert.equal(scrub(cut), '{"user":"ann","password":"***","bio":"long…[truncated 10 chars]')
    assert.equal(scrub('{"token": 12345, "x": 1'), '{"token": "***", "x": 1')
  })
  it('is idempotent', () => {
    const once = scrub('{"password":"a"}')
    assert.equal(scrub(once), once)
  })
  it('leaves plain text alone', () => {
    assert.equal(scrub('just some text = not a form'), 'just some text = not a form')
  })
})

/** A secret every form below carries: none of it may be left after scrubbing. */
const SECRET = 'hunter2SECRETvalue'
const scrubbed = (text: string): string => {
  const out = scrub(text)
  assert.ok(!out.includes(SECRET), `${JSON.stringify(text)} → ${JSON.stringify(out)}`)
  assert.equal(scrub(out), out, 'running it twice changes nothing')
  return out
}

describe('scrub: tokens in URLs', () => {
  for (const name of ['token', 'access_token', 'code', 'api_key', 'password', 'secret', 'sig']) {
    it(`masks ?${name}= in the query and in the fragment, keeping the other parameters`, () => {
      assert.equal(scrubbed(`https://shop.example/cb?${name}=${SECRET}&page=2`), `https://shop.example/cb?${name}=***&page=2`)
      assert.equal(scrubbed(`https://shop.example/cb?page=2&${name}=${SECRET}#top`), `https://shop.example/cb?page=2&${name}=***#top`)
      assert.equal(scrubbed(`https://shop.example/cb#${name}=${SECRET}&state=1`), `https://shop.example/cb#${name}=***&state=1`)
      assert.equal(scrubbed(`https://shop.example/cb#state=1&${name}=${SECRET}`), `https://shop.example/cb#state=1&${name}=***`)
    })
  }
  it('masks them in a URL inside a message, and a URL\'s password', () => {
    assert.equal(scrubbed(`GET https://api.example/v1?api_key=${SECRET} failed: 401`), 'GET https://api.example/v1?api_key=*** failed: 401')
    assert.equal(scrubbed(`POST https://ann:${SECRET}@api.example/x`), 'POST https://ann:***@api.example/x')
  })
  it('keeps an error\'s code in JSON, and URLs without secrets byte for byte', () => {
    assert.equal(scrub('{"code":"card_declined","message":"Declined"}'), '{"code":"card_declined","message":"Declined"}')
    const url = 'https://shop.example/search?q=shoes&page=2#reviews'
    assert.equal(scrub(url), url)
  })
})

describe('scrub: GraphQL inline arguments', () => {
  it('masks a secret argument\'s string, in a query as sent and inside a JSON body', () => {
    assert.equal(scrubbed(`mutation { login(email: "ann@example.com", password: "${SECRET}") { token } }`),
      'mutation { login(email: "ann@example.com", password: "***") { token } }')
    const body = JSON.stringify({ query: `mutation { signIn(input: {login: "ann", password: "${SECRET}"}) { ok } }`, variables: { a: 1 } })
    assert.deepEqual(JSON.parse(scrubbed(body)), { query: 'mutation { signIn(input: {login: "ann", password: "***"}) { ok } }', variables: { a: 1 } })
    assert.equal(scrubbed(`{ resetPassword(token: '${SECRET}') }`), "{ resetPassword(token: '***') }")
  })
})

describe('scrub: JSON keys', () => {
  for (const key of ['jwt', 'sessionid', 'session', 'refresh', 'refresh_token', 'cookie', 'set-cookie', 'authorization', 'Authorization']) {
    it(`masks "${key}" in a JSON body, in a cut one and in a message`, () => {
      assert.deepEqual(JSON.parse(scrubbed(JSON.stringify({ user: 'ann', nested: [{ [key]: SECRET }] }))), { user: 'ann', nested: [{ [key]: '***' }] })
      assert.equal(scrubbed(`{"user":"ann","${key}":"${SECRET}","bio":"long…[truncated 9 chars]`), `{"user":"ann","${key}":"***","bio":"long…[truncated 9 chars]`)
      assert.equal(scrubbed(`Failed with {"${key}": "${SECRET}"}`), `Failed with {"${key}": "***"}`)
    })
  }
})

describe('scrub: credentials in messages', () => {
  it('masks Authorization: Bearer … and Basic … in messages, logs and header lines, keeping the scheme', () => {
    assert.equal(scrubbed(`Request failed: Authorization: Bearer ${SECRET}.eyJzdWIiOiIxIn0.sig sent twice`), 'Request failed: Authorization: Bearer *** sent twice')
    assert.equal(scrubbed(`fetch /api with bearer ${SECRET}`), 'fetch /api with bearer ***')
    const basic = Buffer.from(`ann:${SECRET}`).toString('base64')
    assert.equal(scrubbed(`Authorization: Basic ${basic}`), 'Authorization: Basic ***')
    assert.equal(scrubbed(`401 for Basic ${basic} on /admin`), '401 for Basic *** on /admin')
    assert.equal(scrubbed(`Cookie: sid=${SECRET}; theme=dark\nAccept: */*`), 'Cookie: ***\nAccept: */*')
  })
  it('leaves the words basic and bearer in prose alone', () => {
    for (const text of ['basic information about the Basic plan', 'Invalid password: must be 8 characters']) assert.equal(scrub(text), text)
  })
  it('masks card numbers in the same pass', () => {
    assert.equal(scrubbed(`token=${SECRET}&card=4111111111111111`), 'token=***&card=[card …1111]')
  })
})

describe('scrub: hostile text', () => {
  it('takes linear time: no input of the batch limit blocks for long', () => {
    const mib = 1 << 20
    for (const unit of ['a', ' a=', '"password":"', '&password=', 'Bearer ', '//a:', `${'x'.repeat(63)}=`, '"', 'password: "', '[', 'Basic QUJD ']) {
      const text = unit.repeat(Math.ceil(mib / unit.length))
      const { ms } = timed(() => scrub(text))
      assert.ok(ms < 250, `${JSON.stringify(unit)} × ${text.length / unit.length}: ${ms.toFixed(0)} ms`)
    }
  })
  it('falls back to the pattern pass for JSON nested past the stack', () => {
    const deep = `${'['.repeat(200_000)}"token=${SECRET}"${']'.repeat(200_000)}`
    assert.ok(!scrub(deep).includes(SECRET))
  })
})
