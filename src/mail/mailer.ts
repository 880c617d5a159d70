import { createTransport } from 'nodemailer'
import { escapeHtml } from '../util/html.ts'
import type { SmtpSettings } from './settings.ts'

/** Bound on connecting, the server's greeting and each silence after, so a dead server fails a send rather than holding it. */
export const MAIL_TIMEOUT_MS = 10_000

export interface Invitation {
  readonly to: string
  /** The link that accepts the invitation: http(s) only. */
  readonly inviteUrl: string
  /** Who invited them, as the mail names them (a name or an address). */
  readonly invitedBy: string
  readonly role: string
  readonly expiresAt: Date
}

export interface Mailer {
  /** Sends the invitation; rejects with an Error naming the SMTP server (never its password) when it cannot. */
  sendInvitation(invitation: Invitation): Promise<void>
  /** Closes pooled connections. */
  close(): void
}

/** A mailer sending through SMTP_URL as SMTP_FROM. Nothing connects until the first mail. */
export function openMailer(settings: SmtpSettings): Mailer {
  const url = new URL(settings.url)
  const server = `${url.hostname}:${url.port || (url.protocol === 'smtps:' ? '465' : '587')}`
  const transport = createTransport({
    url: settings.url,
    connectionTimeout: MAIL_TIMEOUT_MS,
    greetingTimeout: MAIL_TIMEOUT_MS,
    socketTimeout: MAIL_TIMEOUT_MS,
    dnsTimeout: MAIL_TIMEOUT_MS,
  })
  return {
    async sendInvitation(invitation) {
      const link = new URL(invitation.inviteUrl)
      if (link.protocol !== 'https:' && link.protocol !== 'http:') throw new Error(`An invitation link must be http(s), not ${link.protocol}`)
      try {
        await transport.sendMail({ from: settings.from, to: invitation.to, ...invitationMail(invitation) })
      } catch (error) {
        // nodemailer's messages name the host and the SMTP reply, never the password; its cause is kept for the log.
        const reason = error instanceof Error ? error.message : String(error)
        throw new Error(`The mail server ${server} did not take the invitation to ${invitation.to}: ${reason}`, { cause: error })
      }
    },
    close() {
      transport.close()
    },
  }
}

/** The subject and both bodies; every value from outside is escaped in the HTML one. */
export function invitationMail(invitation: Invitation): { subject: string; text: string; html: string } {
  const { inviteUrl, invitedBy, role } = invitation
  const expires = invitation.expiresAt.toUTCString()
  const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()
  const e = escapeHtml
  return {
    subject: oneLine(`${invitedBy} invited you to Sessionwatch`),
    text: `${oneLine(invitedBy)} invited you to Sessionwatch as ${role}.\n\n`
      + `Accept the invitation: ${inviteUrl}\n\n`
      + `The link works once, until ${expires}. If you did not expect this invitation, ignore this mail.\n`,
    html: `<!doctype html><html><body style="font-family:system-ui,sans-serif">`
      + `<p>${e(oneLine(invitedBy))} invited you to Sessionwatch as <b>${e(role)}</b>.</p>`
      + `<p><a href="${e(inviteUrl)}">Accept the invitation</a></p>`
      + `<p>The link works once, until ${e(expires)}. If you did not expect this invitation, ignore this mail.</p>`
      + `</body></html>\n`,
  }
}

/** What became of an invitation's mail: sent, not sent and why, or none (SMTP_URL unset). */
export interface Mailed {
  emailed: boolean
  emailError: string | null
}

/**
 * Mails an invitation when SMTP is set up. A mail server that refuses or is down never undoes the invitation: its link
 * is shown to copy either way, and the error says why the mail did not go.
 */
export async function mailInvitation(mailer: Mailer | null, invitation: Invitation): Promise<Mailed> {
  if (mailer === null) return { emailed: false, emailError: null }
  try {
    await mailer.sendInvitation(invitation)
    return { emailed: true, emailError: null }
  } catch (error) {
    return { emailed: false, emailError: error instanceof Error ? error.message : String(error) }
  }
}
