/**
 * Each session's list JSON kept in its row (`sessions.list_json`), so a list page reads one string a row and no read
 * writes JSON again (issue 16, docs/performance.md). A trigger writes it from the columns it shows, whenever a row is
 * inserted or one of those columns is set, so no write path can leave it behind; its expression comes from the
 * response schema (src/sessions/views.ts `sessionJsonOf`). When that expression changes (a field added to the
 * schema), the next process to open the database puts the new trigger in place and writes every row again, once.
 */
import { createHash } from 'node:crypto'
import { sql } from 'kysely'
import type { Db } from '../database.ts'
import { classifyDatabaseError } from '../db/errors.ts'
import { keptColumnTrigger, withoutStatementTimeout } from '../db/sql.ts'
import { sessionJsonOf } from '../sessions/views.ts'

/** The meta row naming the trigger in place, by a digest of its statements. */
const META_KEY = 'sessions.list_json'

/** The statements that put the trigger in place, on this engine: the same text for the same schema. */
const listJsonTrigger = (db: Db): string[] => keptColumnTrigger(db, 'sessions', 'list_json', (row) => sessionJsonOf(db, row))

/**
 * Puts the list JSON's trigger in place if the one there is not this schema's, and then writes every session's JSON
 * again (`progress` hears how many, and when done); else does nothing. One process at a time: the meta row is
 * written first, which takes SQLite's write lock and holds PostgreSQL's row lock until the transaction ends; a process
 * that finds the work done by another when its turn comes does nothing.
 */
export async function keepListJson(db: Db, progress: (line: string) => void = () => undefined): Promise<void> {
  const statements = listJsonTrigger(db)
  const version = createHash('sha256').update(statements.join('\n')).digest('hex').slice(0, 16)
  const inPlace = async (trx: Db) => (await trx.selectFrom('meta').select('value').where('key', '=', META_KEY).executeTakeFirst())?.value === version
  if (await inPlace(db)) return
  for (let attempt = 1; ; attempt++) {
    try {
      await db.transaction().execute(async (trx) => {
        // Before the wait for another process's turn, which lasts as long as its writing (1M sessions: 108 s on PostgreSQL).
        await withoutStatementTimeout(trx)
        await trx.insertInto('meta').values({ key: META_KEY, value: '' })
          .onConflict((oc) => oc.column('key').doUpdateSet((eb) => ({ value: eb.ref('meta.value') }))).execute()
        if (await inPlace(trx)) return
        for (const statement of statements) await sql.raw(statement).execute(trx)
        const started = Date.now()
        const { n } = await trx.selectFrom('sessions').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()
        if (Number(n) > 0) progress(`sessions: writing the list JSON of ${Number(n).toLocaleString('en-US')} visits (a new schema)`)
        await sql`update sessions set list_json = ${sessionJsonOf(trx).json}`.execute(trx)
        if (Number(n) > 0) progress(`sessions: list JSON written in ${((Date.now() - started) / 1000).toFixed(1)} s`)
        await trx.updateTable('meta').set({ value: version }).where('key', '=', META_KEY).execute()
      })
      return
    } catch (error) {
      // SQLite waits for another process's write lock only its busy timeout (5 s): its turn comes after that writing.
      if (classifyDatabaseError(error) !== 'unavailable' || attempt >= WAITS) throw error
      if (attempt === 1) progress('sessions: waiting for another process writing the list JSON')
    }
  }
}

/** Busy timeouts waited for another process's writing of the list JSON, at most: ~10 minutes on SQLite. */
const WAITS = 120
