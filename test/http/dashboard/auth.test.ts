import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { adminAuth, ensurePassword, generatePassword, SESSION_MS } from '../../../src/dashboard/auth.ts'
import { makeSignInLimiter } from '../../../src/dashboard/service.ts'
import { startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'

describe('generatePassword', () => {
  it('makes 20 characters without look-alikes, different each time', () => {
    const a = generatePassword()
    assert.match(a, /^[a-hjkmnp-z2-9AB]{20}$/)
    assert.notEqual(generatePassword(), a)
  })
})

describe('sign-in limiter', () => {
  it('blocks an address after the tenth failure until its window ends, and a success clears it', () => {
    const limiter = makeSignInLimiter(10, 60_000)
    for (let i = 0; i < 9; i++) limiter.fail('a', 1000)
    assert.equal(limiter.retryAfter('a', 1000), 0)
    limiter.fail('a', 1000)
    assert.equal(limiter.retryAfter('a', 2000), 59)
    assert.equal(limiter.retryAfter('a', 61_001), 0, 'the window passed')
    limiter.fail('b', 0)
    limiter.succeed('b')
    assert.equal(limiter.retryAfter('b', 0), 0)
  })
  it('holds a bounded number of addresses', () => {
    const limiter = makeSignInLimiter(1, 60_000, 3)
    for (const ip of ['a', 'b', 'c', 'd']) limiter.fail(ip, 0)
    assert.equal(limiter.retryAfter('d', 1), 60)
  })
})

for (const engine of testEngines()) {
  describe(`admin password and sign-in tokens [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())

    it('stores a generated password once, hashed; a reset replaces it and signs everyone out', async () => {
      const auth = adminAuth(t.app.db, null)
      assert.equal(await auth.configured(), false)
      const password = await ensurePassword(t.app.db)
      assert.ok(password)
      assert.equal(await ensurePassword(t.app.db), null, 'only the first start sets one')
      const stored = await t.app.db.selectFrom('meta').select('value').where('key', '=', 'admin_password').executeTakeFirstOrThrow()
      assert.ok(!stored.value.includes(password))
      assert.equal(await auth.verify(password), true)
      assert.equal(await auth.verify(`${password}x`), false)
      const token = await auth.issue(Date.now())
      assert.equal(await auth.valid(token, Date.now()), true)
      assert.equal(await auth.valid(token, Date.now() + SESSION_MS + 1), false, 'tokens expire')
      assert.equal(await auth.valid(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, Date.now()), false)
      const next = await ensurePassword(t.app.db, { reset: true })
      assert.ok(next && next !== password)
      assert.equal(await auth.verify(password), false)
      assert.equal(await auth.valid(token, Date.now()), false, 'a new password signs everyone out')
    })

    it('ADMIN_PASSWORD takes precedence and its tokens stop working when it changes', async () => {
      const auth = adminAuth(t.app.db, 'from the environment')
      assert.equal(await auth.verify('from the environment'), true)
      const token = await auth.issue(Date.now())
      assert.equal(await adminAuth(t.app.db, 'changed later').valid(token, Date.now()), false)
    })
  })
}
