import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { generatePassword, scryptHash } from '../../../src/accounts/passwords.ts'
import { ensureOwner } from '../../../src/accounts/service.ts'
import * as accounts from '../../../src/accounts/store.ts'
import { dashboardAuth, SESSION_MS } from '../../../src/dashboard/auth.ts'
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
  describe(`accounts: passwords and sign-in tokens [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())
    const client = { ip: '127.0.0.1', userAgent: 'test' }

    it('the first start makes the owner `admin` with a generated Argon2id password; a reset replaces it and ends its sign-ins', async () => {
      const auth = dashboardAuth(t.app.db, null)
      const password = t.app.firstOwnerPassword
      assert.ok(password)
      const admin = await accounts.findUserByEmail(t.app.db, 'admin')
      assert.ok(admin)
      assert.equal(admin.role, 'owner')
      assert.match(admin.password_hash ?? '', /^\$argon2id\$/)
      assert.ok(!admin.password_hash?.includes(password))
      assert.equal(await ensureOwner(t.app.db, { generate: true }), null, 'only the first start makes one')
      const user = await auth.verify('ADMIN', password)
      assert.equal(user?.email, 'admin', 'the login is read in any case')
      assert.equal(await auth.verify('admin', `${password}x`), null)
      assert.equal(await auth.verify('nobody@example.com', password), null)
      assert.ok(user)
      const token = await auth.issue(user, Date.now(), client)
      assert.equal((await auth.signedIn(token, Date.now(), '127.0.0.1'))?.access.role, 'owner')
      assert.equal(await auth.signedIn(token, Date.now() + SESSION_MS + 1, '127.0.0.1'), null, 'tokens expire')
      assert.equal(await auth.signedIn(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, Date.now(), '127.0.0.1'), null)
      const rows = await t.app.db.selectFrom('sign_ins').select('token_hash').execute()
      assert.ok(rows.length > 0 && rows.every((r) => !r.token_hash.includes(token)), 'only the token\'s digest is stored')
      const next = await ensureOwner(t.app.db, { generate: true, reset: true })
      assert.ok(next && next !== password)
      assert.equal(await auth.verify('admin', password), null)
      assert.equal(await auth.signedIn(token, Date.now(), '127.0.0.1'), null, 'a new password ends the sign-ins')
      assert.equal((await t.app.db.selectFrom('sign_ins').select('token_hash').execute()).length, 0, 'and their rows go')
    })

    it('a sign-out ends the sign-in for every process on the database, and expired sign-ins are swept', async () => {
      const auth = dashboardAuth(t.app.db, null)
      const other = dashboardAuth(t.app.db, null)
      const admin = await accounts.findUserByEmail(t.app.db, 'admin')
      assert.ok(admin)
      const old = await auth.issue(admin, Date.now() - SESSION_MS - 1, client)
      const token = await auth.issue(admin, Date.now(), client)
      assert.ok(await other.signedIn(token, Date.now(), '127.0.0.1'))
      await auth.revoke(token)
      assert.equal(await other.signedIn(token, Date.now(), '127.0.0.1'), null)
      const hashes = (await t.app.db.selectFrom('sign_ins').select('token_hash').execute()).map((r) => r.token_hash)
      assert.ok(!hashes.includes(sha256Hex(old)), 'the expired sign-in was swept by the next one')
      await auth.revoke(undefined)
      await auth.revoke('not a token')
    })

    it('ADMIN_PASSWORD is the first owner\'s password, and its sign-ins end when it changes', async () => {
      const auth = dashboardAuth(t.app.db, 'from the environment')
      const user = await auth.verify('admin', 'from the environment')
      assert.ok(user)
      const token = await auth.issue(user, Date.now(), client)
      assert.equal(await dashboardAuth(t.app.db, 'changed later').signedIn(token, Date.now(), '127.0.0.1'), null)
    })

    it('upgrades an scrypt hash to Argon2id at the next sign-in, and the shared password becomes the owner\'s', async () => {
      const auth = dashboardAuth(t.app.db, null)
      await accounts.insertUser(t.app.db, {
        id: 'u_legacy', email: 'old@example.com', name: null, password_hash: await scryptHash('the old one'), role: 'viewer', created_at: Date.now(), last_sign_in_at: null, oidc_subject: null,
      })
      assert.equal(await auth.verify('old@example.com', 'wrong'), null)
      const user = await auth.verify('old@example.com', 'the old one')
      assert.match(user?.password_hash ?? '', /^\$argon2id\$/)
      assert.match((await accounts.findUserById(t.app.db, 'u_legacy'))?.password_hash ?? '', /^\$argon2id\$/, 'stored upgraded')
      assert.ok(await auth.verify('old@example.com', 'the old one'), 'and it still signs in')
      // An install from before accounts: the shared password's scrypt hash in meta, no owner yet.
      await accounts.deleteUserRows(t.app.db, (await accounts.findUserByEmail(t.app.db, 'admin'))?.id ?? '')
      await t.app.db.deleteFrom('meta').where('key', 'in', ['admin_user_id', 'admin_password']).execute()
      await t.app.db.insertInto('meta').values({ key: 'admin_password', value: await scryptHash('shared password') }).execute()
      assert.equal(await ensureOwner(t.app.db, { generate: true }), null, 'nothing new to print: the password stays')
      assert.equal((await auth.verify('admin', 'shared password'))?.role, 'owner')
    })
  })
}
