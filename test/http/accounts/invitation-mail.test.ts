import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { cli } from '../../helpers/cli.ts'
import { testEngines } from '../../helpers/engines.ts'
import { mimeParts, startTestSmtp, type TestSmtp } from '../../helpers/smtp.ts'

const PASSWORD = 'mail test owner password'

for (const engine of testEngines()) {
  describe(`invitations by email, through a real SMTP server [${engine}]`, () => {
    let smtp: TestSmtp
    let t: TestApp
    let cookie: string
    before(async () => {
      smtp = await startTestSmtp()
      t = await startTestApp(engine, { ADMIN_PASSWORD: PASSWORD, PUBLIC_URL: 'https://sw.example.com', SMTP_URL: smtp.url, SMTP_FROM: 'Sessionwatch <sw@sw.example.com>' })
      const res = await t.app.inject({ method: 'POST', url: '/app/api/session', payload: { login: 'admin', password: PASSWORD }, headers: { 'x-sessionwatch': '1' } })
      cookie = String(res.headers['set-cookie']).split(';')[0] ?? ''
    })
    after(async () => {
      await t.close()
      await smtp.stop()
    })
    const invite = (email: string) => t.app.inject({ method: 'POST', url: '/app/api/people', payload: { email, role: 'member' }, headers: { cookie, 'x-sessionwatch': '1' } })

    it('the People page\'s invitation is mailed with its link, which the answer also gives to copy', async () => {
      const res = await invite('mia@example.com')
      assert.equal(res.statusCode, 201, res.body)
      const body = json<{ inviteUrl: string; emailed: boolean; emailError: string | null }>(res)
      assert.deepEqual([body.emailed, body.emailError], [true, null])
      const mail = await smtp.waitForMessage('mia@example.com')
      const text = mimeParts(mail.raw).get('text/plain') ?? ''
      assert.ok(text.includes(body.inviteUrl), text)
      assert.ok(text.includes('admin invited you to Sessionwatch as member'), text)
    })

    it('the CLI mails it too, and prints the link either way', async () => {
      const res = await cli(['user', 'add', '--email', 'cli@example.com', '--role', 'viewer', '--projects', t.project.id, '--json'],
        { DATABASE_URL: t.databaseUrl, PUBLIC_URL: 'https://sw.example.com', SMTP_URL: smtp.url, ADMIN_PASSWORD: PASSWORD })
      assert.equal(res.code, 0, res.stderr)
      const body = JSON.parse(res.stdout) as { inviteUrl: string; emailed: boolean }
      assert.equal(body.emailed, true)
      assert.ok((mimeParts((await smtp.waitForMessage('cli@example.com')).raw).get('text/plain') ?? '').includes(body.inviteUrl))
    })

    it('a mail server that is down never undoes the invitation: the link is given with why the mail did not go', async () => {
      await smtp.stop()
      const res = await invite('ned@example.com')
      assert.equal(res.statusCode, 201, res.body)
      const body = json<{ inviteUrl: string; emailed: boolean; emailError: string | null }>(res)
      assert.equal(body.emailed, false)
      assert.match(body.emailError ?? '', /The mail server 127\.0\.0\.1:\d+ did not take the invitation to ned@example\.com/)
      const token = body.inviteUrl.split('/').at(-1) ?? ''
      assert.deepEqual(json(await t.app.inject({ url: `/app/api/links/${token}` })), { email: 'ned@example.com' })
    })
  })
}
