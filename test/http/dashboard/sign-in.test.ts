import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, it } from 'node:test'
import { SIGN_IN_BUSY_RETRY_SECONDS, SIGN_IN_FREE_FAILURES, SIGN_IN_MAX_CONCURRENT_CHECKS, SIGN_IN_MAX_DELAY_MS } from '../../../src/dashboard/limits.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'

const PASSWORD = 'the right admin password'

const signIn = (t: TestApp, password: string, ip: string) => t.app.inject({
  method: 'POST', url: '/app/api/session', remoteAddress: ip, payload: { password }, headers: { 'x-sessionwatch': '1' },
})
const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0] ?? ''
const statuses = (list: { statusCode: number }[]) => list.reduce<Record<number, number>>((n, r) => ({ ...n, [r.statusCode]: (n[r.statusCode] ?? 0) + 1 }), {})

for (const engine of testEngines()) {
  describe(`dashboard sign-in under attack [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine, { ADMIN_PASSWORD: PASSWORD }) })
    after(() => t.close())

    it('counts 40 concurrent wrong guesses before checking any: only the free ones are checked, the rest wait', async () => {
      const answers = await Promise.all(Array.from({ length: 40 }, () => signIn(t, 'a wrong guess', '10.1.0.1')))
      const counts = statuses(answers)
      assert.ok((counts[401] ?? 0) <= SIGN_IN_FREE_FAILURES, `at most ${SIGN_IN_FREE_FAILURES} evaluated: ${JSON.stringify(counts)}`)
      assert.equal((counts[401] ?? 0) + (counts[429] ?? 0), 40)
      for (const res of answers.filter((r) => r.statusCode === 429)) {
        assert.equal(json(res).code, 'too_many_requests')
        assert.ok(Number(res.headers['retry-after']) >= 1)
      }

      // Someone else's failures never refuse the right password from another address.
      assert.equal((await signIn(t, PASSWORD, '10.1.0.2')).statusCode, 204)

      // From the same address the admin waits a short delay (named in Retry-After), not 15 minutes.
      const held = await signIn(t, PASSWORD, '10.1.0.1')
      assert.equal(held.statusCode, 429)
      const wait = Number(held.headers['retry-after'])
      assert.ok(wait >= 1 && wait <= SIGN_IN_MAX_DELAY_MS / 1000, `Retry-After ${wait} s`)
      assert.match(String(json(held).message), new RegExp(`try again in ${wait} seconds`))
      // The rule is that the wait Retry-After names is enough.
      await sleep(wait * 1000 + 50)
      assert.equal((await signIn(t, PASSWORD, '10.1.0.1')).statusCode, 204, 'the right password works once the wait is over')
      assert.equal((await signIn(t, 'wrong again', '10.1.0.1')).statusCode, 401, 'and the address starts afresh')
    })

    it('a browser that signed in before is counted apart from its address: guessing from that address does not delay it', async () => {
      const first = await signIn(t, PASSWORD, '10.1.1.1')
      const device = String((first.headers['set-cookie'] as string[])[1]).split(';')[0] ?? ''
      assert.match(device, /^sw_device=/)
      await Promise.all(Array.from({ length: 40 }, () => signIn(t, 'a wrong guess', '10.1.1.1')))
      assert.equal((await signIn(t, PASSWORD, '10.1.1.1')).statusCode, 429, 'a browser without the cookie waits')
      const withDevice = (password: string, cookie: string) => t.app.inject({
        method: 'POST', url: '/app/api/session', remoteAddress: '10.1.1.1', payload: { password }, headers: { 'x-sessionwatch': '1', cookie },
      })
      const admin = await withDevice(PASSWORD, device)
      assert.equal(admin.statusCode, 204, admin.body)
      assert.equal((admin.headers['set-cookie'] as string).startsWith('sw_admin='), true, 'the device cookie is kept, not replaced')
      // A forged or altered device cookie is no device: counted by its address, which waits.
      const forged = await withDevice(PASSWORD, `${device.slice(0, -1)}${device.endsWith('A') ? 'B' : 'A'}`)
      assert.equal(forged.statusCode, 429)
      // Failures with the device cookie are throttled on their own, like an address.
      const guesses = await Promise.all(Array.from({ length: 10 }, () => withDevice('wrong', device)))
      assert.ok(guesses.filter((r) => r.statusCode === 401).length <= SIGN_IN_FREE_FAILURES)
      // Past the free ones each is refused for the browser (some of the free ones may find the checks busy).
      assert.ok(guesses.some((r) => r.statusCode === 429 && /from this browser/.test(String(json(r).message))), guesses.map((r) => r.body).join('\n'))
    })

    it('signing out revokes the sign-in: the old cookie answers 401 afterwards', async () => {
      const cookie = cookieOf(await signIn(t, PASSWORD, '10.1.0.3'))
      const headers = { cookie, 'x-sessionwatch': '1' }
      assert.equal((await t.app.inject({ url: '/app/api/projects', headers })).statusCode, 200)
      assert.equal((await t.app.inject({ method: 'DELETE', url: '/app/api/session', headers })).statusCode, 204)
      const reused = await t.app.inject({ url: '/app/api/projects', headers })
      assert.equal(reused.statusCode, 401)
      assert.equal(json(reused).code, 'not_signed_in')
    })
  })

  describe(`dashboard sign-in cookie behind a TLS proxy [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine, { ADMIN_PASSWORD: PASSWORD, PUBLIC_URL: 'https://sw.example.com' }) })
    after(() => t.close())

    it('is Secure when PUBLIC_URL is https, though the request reached the service over http', async () => {
      const res = await signIn(t, PASSWORD, '10.2.0.1')
      assert.equal(res.statusCode, 204)
      const cookies = res.headers['set-cookie'] as string[]
      assert.equal(cookies.length, 2)
      for (const cookie of cookies) assert.match(cookie, /; Secure$/)
      const out = await t.app.inject({ method: 'DELETE', url: '/app/api/session', headers: { cookie: cookieOf(res), 'x-sessionwatch': '1' } })
      assert.match(String(out.headers['set-cookie']), /Max-Age=0; Secure$/)
    })
  })

  describe(`dashboard password checks at once [${engine}]`, () => {
    let t: TestApp
    before(async () => {
      // A generated password, kept as an Argon2id hash: each check takes a worker thread for tens of milliseconds.
      t = await startTestApp(engine)
    })
    after(() => t.close())

    it(`checks at most ${SIGN_IN_MAX_CONCURRENT_CHECKS} at once and refuses the rest at once with 429 and Retry-After`, async () => {
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => signIn(t, 'a wrong guess', `10.3.0.${i + 1}`)))
      const counts = statuses(answers)
      assert.equal((counts[401] ?? 0) + (counts[429] ?? 0), 40, JSON.stringify(counts))
      assert.ok((counts[429] ?? 0) >= 20, `most refused, none queued: ${JSON.stringify(counts)}`)
      const busy = answers.find((r) => r.statusCode === 429)
      assert.ok(busy)
      assert.equal(busy.headers['retry-after'], String(SIGN_IN_BUSY_RETRY_SECONDS))
      assert.match(String(json(busy).message), /being checked at the moment/)
      assert.equal((await signIn(t, 'a wrong guess', '10.3.0.1')).statusCode, 401, 'a refused attempt was not counted against its address')
    })
  })
}
