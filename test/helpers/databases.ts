import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Kysely } from 'kysely'
import pg from 'pg'
import { loadConfig, type Engine } from '../../src/config.ts'
import { BITS_PER_CHUNK } from '../../src/db/bits.ts'
import { openDatabase, type Database, type DatabaseHandle } from '../../src/database.ts'
import type { OpenOptions } from '../../src/db/connect.ts'
import { startTestPostgres, type TestPostgres } from '../../scripts/lib/postgres-server.ts'

export interface TestDatabase {
  /** A DATABASE_URL for the app under test. */
  url: string
  cleanup(): Promise<void>
}

let ownServer: Promise<TestPostgres> | null = null

/**
 * The PostgreSQL server tests create their databases on: the one `npm test` started
 * (SW_TEST_PG_URL), or — when a test file runs on its own — one started for this process.
 */
async function adminUrl(): Promise<string> {
  const shared = process.env.SW_TEST_PG_URL
  if (shared) return shared
  ownServer ??= startTestPostgres().then((server) => {
    process.once('exit', () => { void server.stop() })
    return server
  })
  return (await ownServer).url
}

/** A fresh, empty database of the given engine, dropped again by cleanup(). */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-test-'))
    return { url: `file:${path.join(dir, 'db.sqlite')}`, cleanup: () => { fs.rmSync(dir, { recursive: true, force: true }); return Promise.resolve() } }
  }
  const admin = await adminUrl()
  const name = `sw_test_${randomBytes(6).toString('hex')}`
  // A locale-aware default collation, as production servers commonly have: the schema must not
  // depend on the server's locale for ordering (key columns are COLLATE "C").
  await withClient(admin, (c) => c.query(
    `create database ${name} template template0 encoding 'UTF8' locale_provider icu icu_locale 'en-US' locale 'C.UTF-8'`))
  const url = new URL(admin)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    cleanup: () => withClient(admin, (c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  }
}

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(url)
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

/** How many events a session has, read through a second, independent connection. */
export async function countEventsElsewhere(engine: Engine, databaseUrl: string, sessionId: string): Promise<number> {
  if (engine === 'sqlite') {
    const { default: SQLite } = await import('better-sqlite3')
    const other = new SQLite(databaseUrl.replace(/^file:/, ''), { readonly: true })
    try {
      return (other.prepare('select count(*) as n from events where session_id = ?').get(sessionId) as { n: number }).n
    } finally {
      other.close()
    }
  }
  return withClient(databaseUrl, async (c) =>
    Number((await c.query<{ n: string }>('select count(*) as n from events where session_id = $1', [sessionId])).rows[0]?.n))
}

/** A real, migrated database of the given engine, opened as the service opens it, for store tests. */
export async function openTestDatabase(engine: Engine, options: OpenOptions = {}): Promise<DatabaseHandle & { dispose(): Promise<void> }> {
  const location = await createTestDatabase(engine)
  const handle = await openDatabase(loadConfig({ DATABASE_URL: location.url }).database, options)
  return { ...handle, dispose: async () => { await handle.close(); await location.cleanup() } }
}

/**
 * What a project's term_bits say, as sorted `<session id> <term>` lines: each set bit read back to the visit of that
 * number (SQLite returns a chunk's bytes, PostgreSQL its bit string as text), to compare with session_terms.
 */
export async function storedTermBits(db: Kysely<Database>, projectId: string): Promise<string[]> {
  const idOf = new Map((await db.selectFrom('sessions').select(['num', 'id']).where('project_id', '=', projectId).execute())
    .map((s) => [s.num, s.id]))
  const lines: string[] = []
  for (const { term, chunk, bits } of await db.selectFrom('term_bits').select(['term', 'chunk', 'bits']).where('project_id', '=', projectId).execute()) {
    const ones = typeof bits === 'string' ? Array.from(bits, (c) => c === '1')
      : [...(bits as Uint8Array)].flatMap((byte) => Array.from({ length: 8 }, (_, k) => (byte & (0x80 >> k)) !== 0))
    ones.forEach((on, k) => { if (on) lines.push(`${idOf.get(chunk * BITS_PER_CHUNK + k) ?? `no visit numbered ${chunk * BITS_PER_CHUNK + k}`} ${term}`) })
  }
  return lines.sort()
}

/** The same from session_terms. */
export async function storedTerms(db: Kysely<Database>, projectId: string): Promise<string[]> {
  return (await db.selectFrom('session_terms').select(['session_id', 'term']).where('project_id', '=', projectId).execute())
    .map((t) => `${t.session_id} ${t.term}`).sort()
}
