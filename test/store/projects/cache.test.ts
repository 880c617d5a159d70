/**
 * Project lookups (key → project) are kept in memory while no project changes, and a change made by this process
 * or another one is seen by the next lookup: a rotated key stops working, a changed setting applies. Two handles
 * opened on one database stand for two processes (each has its own connections and its own change signal).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { loadConfig } from '../../../src/config.ts'
import { externalVersion } from '../../../src/db/changes.ts'
import { openDatabase, type DatabaseHandle } from '../../../src/database.ts'
import {
  createProject, getProject, projectForApiKey, projectForDsn, projectForIngestKey, rotateKeys, updateProject,
} from '../../../src/projects/service.ts'
import { createTestDatabase, type TestDatabase } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'
import { eventually } from '../../helpers/wait.ts'

for (const engine of testEngines()) {
  describe(`project lookups [${engine}]`, () => {
    let location: TestDatabase
    let here: DatabaseHandle
    let other: DatabaseHandle
    /** The statements `here` ran that read or wrote the projects table. */
    const projectQueries: string[] = []

    before(async () => {
      location = await createTestDatabase(engine)
      const config = loadConfig({ DATABASE_URL: location.url }).database
      here = await openDatabase(config, { onQuery: (q) => { if (/"projects"/.test(q.sql)) projectQueries.push(q.sql) } })
      other = await openDatabase(config)
      // PostgreSQL's signal is up once its listening connection is; until then every lookup reads the database.
      await eventually(() => Promise.resolve(externalVersion(here.db) !== null || null), 'the change signal')
    })
    after(async () => {
      await here.close()
      await other.close()
      await location.cleanup()
    })

    /** How many project statements `run` made `here` run. */
    async function queriesOf(run: () => Promise<unknown>): Promise<number> {
      const before = projectQueries.length
      await run()
      return projectQueries.length - before
    }

    it('resolves a key seen before without a query while no project changes', async () => {
      const signal = externalVersion(here.db)
      const p = await createProject(here.db, { name: 'Shop', domain: 'shop.example' })
      // On PostgreSQL this process hears its own write's notification too, a moment after the commit.
      if (engine === 'postgres') await eventually(() => Promise.resolve(externalVersion(here.db) !== signal || null), 'the notification', 1000, 1)
      const lookups = [
        () => projectForApiKey(here.db, p.apiKey), () => projectForIngestKey(here.db, p.ingestKey),
        () => projectForDsn(here.db, p.sentryProjectId, p.dsnKey), () => getProject(here.db, p.id),
      ]
      for (const lookup of lookups) {
        assert.equal(await queriesOf(lookup), 1, 'the first lookup reads the database')
        assert.equal(await queriesOf(lookup), 0, 'the second is answered from memory')
        assert.equal((await lookup())?.id, p.id)
      }
      // Unknown keys are not kept: each asks again (and random keys cannot grow the cache).
      assert.equal(await queriesOf(() => projectForApiKey(here.db, 'sk_unknown')), 1)
      assert.equal(await queriesOf(() => projectForApiKey(here.db, 'sk_unknown')), 1)
    })

    it('a rotation or a setting changed by this process applies to the very next lookup', async () => {
      const p = await createProject(here.db, { name: 'Shop', domain: 'shop.example' })
      assert.ok(await projectForApiKey(here.db, p.apiKey))
      assert.ok(await projectForIngestKey(here.db, p.ingestKey))
      const rotated = await rotateKeys(here.db, p.id, { ingest: true })
      assert.equal(await projectForApiKey(here.db, p.apiKey), null, 'the old API key stops working')
      assert.equal(await projectForIngestKey(here.db, p.ingestKey), null, 'the old ingest key stops working')
      assert.equal((await projectForApiKey(here.db, rotated.apiKey))?.id, p.id)
      assert.equal((await getProject(here.db, p.id)).retentionDays, 30)
      await updateProject(here.db, p.id, { retentionDays: 7, maskFields: ['iban'] })
      const changed = await projectForApiKey(here.db, rotated.apiKey)
      assert.deepEqual([changed?.retentionDays, changed?.maskFields], [7, ['iban']])
    })

    it('a rotation or a setting changed by another process applies to this one', async () => {
      const p = await createProject(here.db, { name: 'Shop', domain: 'shop.example' })
      assert.ok(await projectForApiKey(here.db, p.apiKey))
      const rotated = await rotateKeys(other.db, p.id, { ingest: false })
      const started = performance.now()
      // SQLite: data_version has moved by the time the other connection's commit returns, so the very next lookup
      // misses. PostgreSQL: the notification arrives after the commit, in well under a millisecond on one host.
      const gone = engine === 'sqlite'
        ? await projectForApiKey(here.db, p.apiKey) === null
        : await eventually(async () => (await projectForApiKey(here.db, p.apiKey)) === null || null, 'the rotation', 1000, 1)
      assert.ok(gone, 'the old API key stops working')
      assert.ok(performance.now() - started < 1000)
      assert.equal((await projectForApiKey(here.db, rotated.apiKey))?.id, p.id)
      await updateProject(other.db, p.id, { ipStorage: 'none' })
      await eventually(async () => ((await projectForApiKey(here.db, rotated.apiKey))?.ipStorage === 'none') || null, 'the setting', 1000, 1)
    })

    it('a transaction reads its own snapshot, never the cache', async () => {
      const p = await createProject(here.db, { name: 'Shop', domain: 'shop.example' })
      assert.ok(await projectForApiKey(here.db, p.apiKey))
      const inside = await here.db.transaction().execute((trx) => queriesOf(() => projectForApiKey(trx, p.apiKey)))
      assert.equal(inside, 1)
    })

    if (engine === 'postgres') {
      it('while the listening connection is down every lookup reads the database; it reconnects by itself', async () => {
        const p = await createProject(here.db, { name: 'Shop', domain: 'shop.example' })
        assert.ok(await projectForApiKey(here.db, p.apiKey))
        await sql`select pg_terminate_backend(pid) from pg_stat_activity
          where application_name = 'sessionwatch-listen' and datname = current_database()`.execute(other.db)
        await eventually(() => Promise.resolve(externalVersion(here.db) === null || null), 'the signal to go down', 5000, 5)
        // A rotation now sends a notification nobody hears: the lookup must not come from memory.
        const rotated = await rotateKeys(other.db, p.id, { ingest: false })
        assert.equal(await projectForApiKey(here.db, p.apiKey), null)
        assert.equal(await queriesOf(() => projectForApiKey(here.db, rotated.apiKey)), 1)
        assert.equal(await queriesOf(() => projectForApiKey(here.db, rotated.apiKey)), 1, 'nothing is kept while down')
        await eventually(() => Promise.resolve(externalVersion(here.db) !== null || null), 'the signal to come back', 10_000, 20)
        assert.ok(await projectForApiKey(here.db, rotated.apiKey))
        assert.equal(await queriesOf(() => projectForApiKey(here.db, rotated.apiKey)), 0, 'cached again')
        const again = await rotateKeys(other.db, p.id, { ingest: false })
        await eventually(async () => (await projectForApiKey(here.db, rotated.apiKey)) === null || null, 'the next rotation', 1000, 1)
        assert.equal((await projectForApiKey(here.db, again.apiKey))?.id, p.id)
      })
    }
  })
}
