import { bad, ok, parseUrlSetting, type Parsed, type ReadSetting } from '../util/setting.ts'

/** SMTP_URL and SMTP_FROM: the server mail is sent through and the sender it names. */
export interface SmtpSettings {
  /** `smtp://` (STARTTLS when the server offers it) or `smtps://` (TLS from the start), credentials inside. */
  readonly url: string
  /** The From header: `Name <address>` or an address. */
  readonly from: string
}

/** One address, with or without a display name: `Sessionwatch <sw@example.com>` or `sw@example.com`. */
const FROM = /^(?:[^<>@\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/

/**
 * Reads SMTP_URL and SMTP_FROM through src/config.ts's reader; null when SMTP_URL is unset. The default sender is at
 * the host of PUBLIC_URL (`publicUrl`), so replies and bounces name the service's own domain.
 */
export function readSmtpSettings(read: ReadSetting, publicUrl: string | null, problems: string[]): SmtpSettings | null {
  const url = read<string | null>('SMTP_URL', null, parseSmtpUrl)
  const host = publicUrl === null ? 'localhost' : new URL(publicUrl).hostname
  const from = read<string | null>('SMTP_FROM', null, (raw) =>
    FROM.test(raw) ? ok(raw) : bad('must be an address, or a name and an address: Sessionwatch <sessionwatch@example.com>'))
  if (url === null) {
    if (from !== null) problems.push('SMTP_FROM is set but SMTP_URL is not: set SMTP_URL to the server mail is sent through, or unset SMTP_FROM')
    return null
  }
  return Object.freeze({ url, from: from ?? `Sessionwatch <sessionwatch@${host}>` })
}

function parseSmtpUrl(raw: string): Parsed<string> {
  const url = parseUrlSetting(raw, ['smtp:', 'smtps:'], 'must be an smtp:// or smtps:// URL such as smtps://user:password@mail.example.com:465',
    'must start with smtp:// or smtps://')
  if ('problem' in url) return url
  return url.value.hostname === '' ? bad('must name the SMTP server\'s host') : ok(raw)
}
