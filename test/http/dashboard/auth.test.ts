import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { adminAuth, ensurePassword, generatePassword, SESSION_MS } from '../../../src/dashboard/auth.ts'
import { makeSignInLimiter } from '../../../src/dashboard/service.ts'
import { sha256Hex } from '../../../src/util/ids.ts'
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
  it('counts each attempt as it starts: after the free ones each waits a delay that doubles up to a minute', () => {
    const limiter = makeSignInLimiter({ free: 5, firstDelayMs: 1000, maxDelayMs: 60_000 })
    for (let i = 0; i < 4; i++) assert.equal(limiter.attempt('a', 0), 0)
    assert.equal(limiter.attempt('a', 0), 0, 'the fifth goes ahead')
    assert.equal(limiter.attempt('a', 0), 1, 'the sixth, at once, waits a second')
    const waits: number[] = []
    let now = 0
    for (let i = 0; i < 10; i++) {
      const wait = limiter.attempt('a', now)
      assert.equal(limiter.attempt('a', now + wait * 1000 - 1) > 0, wait > 0, 'refused until the wait is over')
      now += wait * 1000
      assert.equal(limiter.attempt('a', now), 0)
      waits.push(wait)
    }
    assert.deepEqual(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60, 60])
    assert.equal(limiter.attempt('b', now), 0, 'other addresses are not affected')
    limiter.succeed('a')
    assert.equal(limiter.attempt('a', now), 0, 'a right password starts the address afresh')
  })
  it('forgets an address after its window, and holds a bounded number of addresses', () => {
    const limiter = makeSignInLimiter({ free: 1, windowMs: 60_000, maxAddresses: 3 })
    limiter.attempt('a', 0)
    assert.ok(limiter.attempt('a', 1) > 0)
    assert.equal(limiter.attempt('a', 60_000), 0, 'the window passed')
    for (const ip of ['b', 'c', 'd']) limiter.attempt(ip, 60_000)
    assert.equal(limiter.attempt('a', 60_001), 0, 'the least recently tried went first')
    assert.ok(limiter.attempt('d', 60_001) > 0)
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
      const rows = await t.app.db.selectFrom('admin_sessions').select('token_hash').execute()
      assert.ok(rows.length > 0 && rows.every((r) => !r.token_hash.includes(token)), 'only the token\'s digest is stored')
      const next = await ensurePassword(t.app.db, { reset: true })
      assert.ok(next && next !== password)
      assert.equal(await auth.verify(password), false)
      assert.equal(await auth.valid(token, Date.now()), false, 'a new password signs everyone out')
      assert.equal((await t.app.db.selectFrom('admin_sessions').select('token_hash').execute()).length, 0, 'and their rows go')
    })

    it('a sign-out ends the sign-in for every process on the database, and expired sign-ins are swept', async () => {
      const auth = adminAuth(t.app.db, 'x'.repeat(12))
      const other = adminAuth(t.app.db, 'x'.repeat(12))
      const old = await auth.issue(Date.now() - SESSION_MS - 1)
      const token = await auth.issue(Date.now())
      assert.equal(await other.valid(token, Date.now()), true)
      await auth.revoke(token)
      assert.equal(await other.valid(token, Date.now()), false)
      const hashes = (await t.app.db.selectFrom('admin_sessions').select('token_hash').execute()).map((r) => r.token_hash)
      assert.ok(!hashes.includes(sha256Hex(old)), 'the expired sign-in was swept by the next one')
      await auth.revoke(undefined)
      await auth.revoke('not a token')
    })

    it('ADMIN_PASSWORD takes precedence and its tokens stop working when it changes', async () => {
      const auth = adminAuth(t.app.db, 'from the environment')
      assert.equal(await auth.verify('from the environment'), true)
      const token = await auth.issue(Date.now())
      assert.equal(await adminAuth(t.app.db, 'changed later').valid(token, Date.now()), false)
    })
  })
}
