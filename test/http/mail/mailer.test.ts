import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { MAIL_TIMEOUT_MS, openMailer } from '../../../src/mail/mailer.ts'
import { startSilentServer } from '../../helpers/silent.ts'
import { mimeParts, startTestSmtp, type TestSmtp } from '../../helpers/smtp.ts'

const EXPIRES = new Date('2031-03-04T05:06:07Z')

describe('the mailer against a real SMTP server', () => {
  let smtp: TestSmtp
  before(async () => {
    smtp = await startTestSmtp({ user: 'sw', password: 'hunter2-secret' })
  })
  after(async () => {
    await smtp.stop()
  })

  it('sends an invitation with its link in the text and the HTML part, every value escaped in the HTML', async () => {
    const mailer = openMailer({ url: smtp.url, from: 'Sessionwatch <sessionwatch@sw.example.com>' })
    const inviteUrl = 'https://sw.example.com/app/invite?token=abc&x=<1>'
    try {
      await mailer.sendInvitation({ to: 'new@example.com', inviteUrl, invitedBy: 'Eve <script>alert(1)</script> & co', role: 'admin', expiresAt: EXPIRES })
    } finally {
      mailer.close()
    }
    const mail = await smtp.waitForMessage('new@example.com')
    assert.deepEqual([mail.from, mail.to], ['sessionwatch@sw.example.com', ['new@example.com']])
    assert.match(mail.raw, /^From: Sessionwatch <sessionwatch@sw\.example\.com>\r$/m)
    const parts = mimeParts(mail.raw)
    const text = parts.get('text/plain') ?? ''
    const html = parts.get('text/html') ?? ''
    assert.ok(text.includes(`Accept the invitation: ${inviteUrl}\n`), text)
    assert.ok(text.includes('as admin') && text.includes(EXPIRES.toUTCString()), text)
    assert.ok(html.includes('<a href="https://sw.example.com/app/invite?token=abc&#38;x=&#60;1&#62;">'), html)
    assert.ok(html.includes('Eve &#60;script&#62;alert(1)&#60;/script&#62; &#38; co invited you'), html)
    assert.doesNotMatch(html, /<script>/)
  })

  it('refuses a link that is not http(s) before sending anything', async () => {
    const mailer = openMailer({ url: smtp.url, from: 'sw@example.com' })
    await assert.rejects(mailer.sendInvitation({ to: 'x@example.com', inviteUrl: 'javascript:alert(1)', invitedBy: 'a', role: 'viewer', expiresAt: EXPIRES }),
      /must be http\(s\), not javascript:/)
    mailer.close()
    assert.equal(smtp.messages.some((m) => m.to.includes('x@example.com')), false)
  })

  it('rejects naming the SMTP host, never its password, when the server refuses the login or is down', async () => {
    const wrong = openMailer({ url: smtp.url.replace('hunter2-secret', 'wrong-secret'), from: 'sw@example.com' })
    const invitation = { to: 'late@example.com', inviteUrl: 'https://sw.example.com/i', invitedBy: 'a', role: 'viewer', expiresAt: EXPIRES }
    await assert.rejects(wrong.sendInvitation(invitation), (error: unknown) => {
      assert.ok(error instanceof Error)
      assert.match(error.message, new RegExp(`^The mail server 127\\.0\\.0\\.1:${smtp.port} did not take the invitation to late@example\\.com: .*Invalid`))
      assert.doesNotMatch(error.message, /secret/)
      return true
    })
    wrong.close()

    const down = await startTestSmtp()
    await down.stop()
    const mailer = openMailer({ url: `smtp://sw:hunter2-secret@127.0.0.1:${down.port}`, from: 'sw@example.com' })
    await assert.rejects(mailer.sendInvitation(invitation), (error: unknown) => {
      assert.ok(error instanceof Error)
      assert.match(error.message, new RegExp(`^The mail server 127\\.0\\.0\\.1:${down.port} did not take the invitation.*ECONNREFUSED`))
      assert.doesNotMatch(error.message, /hunter2/)
      return true
    })
    mailer.close()
  })

  it(`gives up on a server that does not greet after ${MAIL_TIMEOUT_MS / 1000} s, naming it`, async () => {
    const silent = await startSilentServer()
    const mailer = openMailer({ url: `smtp://127.0.0.1:${silent.port}`, from: 'sw@example.com' })
    try {
      const started = Date.now()
      await assert.rejects(mailer.sendInvitation({ to: 'slow@example.com', inviteUrl: 'https://sw.example.com/i', invitedBy: 'a', role: 'viewer', expiresAt: EXPIRES }),
        new RegExp(`^Error: The mail server 127\\.0\\.0\\.1:${silent.port} did not take the invitation to slow@example\\.com: .*[Gg]reeting`))
      const took = Date.now() - started
      assert.ok(took >= MAIL_TIMEOUT_MS - 50 && took < MAIL_TIMEOUT_MS + 3000, `${took} ms`)
    } finally {
      mailer.close()
      await silent.stop()
    }
  })
})
