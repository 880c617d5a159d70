/**
 * The engine's SQL dialect (src/db/dialect.ts) is chosen once, when the database opens, by the configured engine,
 * and reaches every query and transaction from Kysely's adapter.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely'
import { dialectOf } from '../../../src/db/dialect.ts'
import { postgresSql } from '../../../src/db/postgres/dialect.ts'
import { sqliteSql } from '../../../src/db/sqlite/dialect.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'

for (const engine of testEngines()) {
  describe(`the SQL dialect [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    before(async () => { handle = await openTestDatabase(engine) })
    after(() => handle.dispose())

    it('is the configured engine\'s, on the database and in its transactions', async () => {
      const expected = engine === 'postgres' ? postgresSql : sqliteSql
      assert.equal(dialectOf(handle.db), expected)
      await handle.db.transaction().execute((trx) => {
        assert.equal(dialectOf(trx), expected)
        return Promise.resolve()
      })
    })
  })
}

describe('the SQL dialect of a database not opened through src/db/', () => {
  it('is refused, not guessed', () => {
    const db = new Kysely<unknown>({
      dialect: {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (k) => new SqliteIntrospector(k),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      },
    })
    assert.throws(() => dialectOf(db), /not opened through src\/db\//)
  })
})
