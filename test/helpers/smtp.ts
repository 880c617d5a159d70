import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

/** A message as the server took it: the SMTP envelope and the message's raw text. */
export interface ReceivedMail {
  from: string
  to: string[]
  raw: string
}

export interface TestSmtp {
  /** SMTP_URL for this server, with its user and password when it asks for them. */
  url: string
  host: string
  port: number
  messages: ReceivedMail[]
  /** Resolves with the first message to `to` (one already taken, or the next). */
  waitForMessage(to: string, ms?: number): Promise<ReceivedMail>
  stop(): Promise<void>
}

/**
 * A real SMTP server (smtp-server) on a free loopback port, without TLS, keeping every message it takes. With
 * `auth`, it asks for that user and password (over plain text: loopback only) and refuses others.
 */
export async function startTestSmtp(auth?: { user: string; password: string }): Promise<TestSmtp> {
  const messages: ReceivedMail[] = []
  const waiting: { to: string; resolve: (mail: ReceivedMail) => void }[] = []
  const server = new SMTPServer({
    logger: false,
    disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !auth,
    allowInsecureAuth: true,
    onAuth(credentials, _session, callback) {
      if (auth && credentials.username === auth.user && credentials.password === auth.password) callback(null, { user: auth.user })
      else callback(new Error('Invalid username or password'))
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const mail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        }
        messages.push(mail)
        for (const waiter of waiting.filter((w) => mail.to.includes(w.to))) {
          waiting.splice(waiting.indexOf(waiter), 1)
          waiter.resolve(mail)
        }
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  const credentials = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.password)}@` : ''
  return {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    messages,
    waitForMessage(to, ms = 10_000) {
      const taken = messages.find((m) => m.to.includes(to))
      if (taken) return Promise.resolve(taken)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`no message to ${to} within ${ms} ms`))
        }, ms)
        waiting.push({ to, resolve: (mail) => {
          clearTimeout(timer)
          resolve(mail)
        } })
      })
    },
    stop: () => new Promise<void>((resolve) => {
      server.close(() => {
        resolve()
      })
    }),
  }
}

/**
 * The decoded text of each part of a raw MIME message, by content type (`text/plain`, `text/html`), as a mail reader
 * shows it: quoted-printable and base64 bodies decoded, lines ending in \n.
 */
export function mimeParts(raw: string): Map<string, string> {
  const parts = new Map<string, string>()
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)?.[1]
  for (const part of boundary ? raw.split(`--${boundary}`) : [raw]) {
    const split = part.indexOf('\r\n\r\n')
    if (split < 0) continue
    const head = part.slice(0, split)
    const type = /^content-type:\s*([^;\r\n]+)/im.exec(head)?.[1]?.toLowerCase()
    if (!type?.startsWith('text/')) continue
    const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(head)?.[1]?.toLowerCase()
    const body = part.slice(split + 4).replace(/\r\n$/, '')
    const bytes = encoding === 'base64' ? Buffer.from(body, 'base64')
      : encoding === 'quoted-printable'
        ? Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1')
        : Buffer.from(body, 'utf8')
    parts.set(type, bytes.toString('utf8').replace(/\r\n/g, '\n'))
  }
  return parts
}
