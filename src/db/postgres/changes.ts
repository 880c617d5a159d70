import type pg from 'pg'
import type { ExternalChanges } from '../changes.ts'
import type { PgDriver } from './dialect.ts'

const RETRY_MS = { first: 100, max: 5000 }

/**
 * PostgreSQL: one connection of its own LISTENs to the channel; each notification moves the version. The
 * server delivers a notification to listeners when the writing transaction commits, in well under a millisecond
 * on one host. While that connection is down (a restart, a dropped connection) the version is null and callers
 * read the database; it reconnects by itself, and a reconnect moves the version too, since notifications sent
 * meanwhile are lost.
 */
export function postgresChanges(driver: PgDriver, url: string, channel: string): ExternalChanges {
  let version = 0
  // The connection being opened or listening; any other is an old one whose late events mean nothing.
  let current: pg.Client | null = null
  let listening = false
  let closed = false
  let retry: NodeJS.Timeout | null = null
  let delay = RETRY_MS.first

  const lost = (client: pg.Client): void => {
    client.end().catch(() => undefined)
    if (client !== current) return
    current = null
    listening = false
    if (closed) return
    retry = setTimeout(() => { retry = null; void connect() }, delay)
    retry.unref()
    delay = Math.min(delay * 2, RETRY_MS.max)
  }

  const connect = async (): Promise<void> => {
    const client = new driver.Client({ connectionString: url, application_name: 'sessionwatch-listen', connectionTimeoutMillis: 5000 })
    current = client
    // An error on this connection (the server restarting, say) must not end the process: an 'error' event with no
    // listener would. The connection is given up and opened again.
    client.on('error', () => { lost(client) })
    client.on('end', () => { lost(client) })
    client.on('notification', () => { version++ })
    try {
      await client.connect()
      await client.query(`LISTEN ${channel}`)
    } catch {
      lost(client)
      return
    }
    if (client !== current) return
    version++
    listening = true
    delay = RETRY_MS.first
  }

  void connect()
  return {
    version: () => (listening ? version : null),
    close: async () => {
      closed = true
      if (retry) clearTimeout(retry)
      const client = current
      current = null
      listening = false
      await client?.end().catch(() => undefined)
    },
  }
}
