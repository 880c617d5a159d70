/**
 * How the service's own connections are set when they open (src/db/postgres/dialect.ts), on a database opened as the service
 * opens it, from its configuration. PostgreSQL only: SQLite runs every statement in this process, on one thread.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { loadConfig } from '../../../src/config.ts'
import { openDatabase, type DatabaseHandle } from '../../../src/database.ts'
import { createTestDatabase, type TestDatabase } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'

/** Two transactions held open at once, so on two connections: each one's backend pid and settings. */
async function twoConnections(handle: DatabaseHandle): Promise<{ pid: number; workers: string; lockTimeout: string }[]> {
  const settings = await Promise.all([1, 2].map(() => handle.db.transaction().execute(async (trx) => {
    const { rows: [row] } = await sql<{ pid: number; workers: string; lockTimeout: string }>`select pg_backend_pid() as pid,
      current_setting('max_parallel_workers_per_gather') as workers, current_setting('lock_timeout') as "lockTimeout"`.execute(trx)
    // Held a moment, so that the other transaction cannot take this connection.
    await sql`select pg_sleep(0.05)`.execute(trx)
    assert.ok(row)
    return row
  })))
  assert.equal(new Set(settings.map((s) => s.pid)).size, 2, 'two connections of the pool')
  return settings
}

for (const engine of testEngines().filter((e) => e === 'postgres')) {
  describe(`the service's connections [${engine}]`, () => {
    let location: TestDatabase
    before(async () => { location = await createTestDatabase(engine) })
    after(() => location.cleanup())

    // 3, not PostgreSQL's own default of 2: a setting not sent at all must not pass for one sent.
    for (const [setting, expected] of [[undefined, '0'], ['3', '3']] as const) {
      it(`plan ${expected} parallel workers on every connection of the pool with DATABASE_PARALLEL_WORKERS ${setting ?? 'unset'}`, async () => {
        const handle = await openDatabase(loadConfig({ DATABASE_URL: location.url, ...(setting && { DATABASE_PARALLEL_WORKERS: setting }) }).database)
        try {
          assert.deepEqual((await twoConnections(handle)).map((s) => s.workers), [expected, expected])
        } finally {
          await handle.close()
        }
      })
    }

    it('keep the options the DATABASE_URL carries beside the service\'s own', async () => {
      const url = new URL(location.url)
      url.searchParams.set('options', '-c lock_timeout=1234')
      const handle = await openDatabase(loadConfig({ DATABASE_URL: url.toString() }).database)
      try {
        assert.deepEqual((await twoConnections(handle)).map((s) => [s.lockTimeout, s.workers]), [['1234ms', '0'], ['1234ms', '0']])
      } finally {
        await handle.close()
      }
    })
  })
}
