import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Kysely } from 'kysely'
import type { Database } from '../../../src/db/database.ts'
import { AppError } from '../../../src/errors.ts'
import type { EventRecord } from '../../../src/events/types.ts'
import { createWriter } from '../../../src/visits/writer.ts'
import { writeBatches, type WriteJob } from '../../../src/visits/write.ts'
import { createProject } from '../../../src/projects/service.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { eventRecord, writeJob } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'

/** Counts transactions opened through this database handle. */
function countingTransactions(db: Kysely<Database>): { db: Kysely<Database>; count: () => number } {
  let n = 0
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === 'transaction') n++
      const value: unknown = Reflect.get(target, prop, target)
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    },
  })
  return { db: proxy, count: () => n }
}

for (const engine of testEngines()) {
  describe(`group-commit writer [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    let projectId: string
    const now = Date.now()
    const job = (sessionKey: string, events: EventRecord[], extra: Partial<WriteJob['seed']> = {}): WriteJob => {
      const made = writeJob(projectId, sessionKey, events, now)
      return { ...made, seed: { ...made.seed, ...extra } }
    }
    /** The statements run while `recording` is on. */
    const statements: string[] = []
    let recording = false
    before(async () => {
      handle = await openTestDatabase(engine, { onQuery: (q) => { if (recording) statements.push(q.sql) } })
      projectId = (await createProject(handle.db, { name: 'W', domain: 'w.example' })).id
    })
    after(() => handle.dispose())

    it('commits batches that arrive together in one transaction', async () => {
      const counting = countingTransactions(handle.db)
      const writer = createWriter(counting.db)
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => writer.submit(job(`group-${i}-key`, [eventRecord('a', now), eventRecord('b', now)]))))
      await writer.close()
      assert.ok(results.every((r) => r.accepted === 2))
      assert.equal(counting.count(), 1)
    })

    it('with two lanes commits two groups, and a visit\'s batches keep their order across them', async () => {
      const counting = countingTransactions(handle.db)
      const writer = createWriter(counting.db, { lanes: 2 })
      const others = Array.from({ length: 40 }, (_, i) => writer.submit(job(`lanes-${i}-key`, [eventRecord('a', now)])))
      const same = Array.from({ length: 10 }, (_, i) => writer.submit(job('lanes-ordered-key', [eventRecord(`e${i}`, now)])))
      const results = await Promise.all([...others, ...same])
      await writer.close()
      assert.ok(results.every((r) => r.accepted === 1))
      assert.equal(counting.count(), 2, 'one group per lane')
      const rows = await handle.db.selectFrom('events').innerJoin('sessions', (j) => j.onRef('sessions.id', '=', 'events.session_id'))
        .select(['events.id']).where('sessions.session_key', '=', 'lanes-ordered-key').orderBy('events.seq').execute()
      assert.deepEqual(rows.map((r) => r.id), Array.from({ length: 10 }, (_, i) => `e${i}`))
    })

    it('keeps one session\'s batches in arrival order across a group', async () => {
      const writer = createWriter(handle.db)
      const same = Array.from({ length: 10 }, (_, i) => writer.submit(job('ordered-key', [eventRecord(`e${i}`, now)])))
      const other = writer.submit(job('another-key', [eventRecord('x', now)]))
      await Promise.all([...same, other])
      await writer.close()
      const rows = await handle.db.selectFrom('events').innerJoin('sessions', (j) => j.onRef('sessions.id', '=', 'events.session_id'))
        .select(['events.id', 'events.seq']).where('sessions.session_key', '=', 'ordered-key').orderBy('events.seq').execute()
      assert.deepEqual(rows.map((r) => r.id), Array.from({ length: 10 }, (_, i) => `e${i}`))
    })

    it('fails a bad batch alone and commits the rest of its group', async () => {
      const writer = createWriter(handle.db)
      await writer.submit(job('conflict-key', [eventRecord('a', now)], { id: 'conflict-owner' }))
      const outcomes = await Promise.allSettled([
        writer.submit(job('fine-1-key', [eventRecord('a', now)])),
        // Import semantics: the key belongs to another session id, so this batch is refused.
        writer.submit(job('conflict-key', [eventRecord('b', now)], { id: 'someone-else' })),
        writer.submit(job('fine-2-key', [eventRecord('a', now)])),
      ])
      await writer.close()
      assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled'])
      const rejected = outcomes[1]
      assert.ok(rejected.status === 'rejected' && rejected.reason instanceof AppError)
      const stored = await handle.db.selectFrom('sessions').select('session_key')
        .where('session_key', 'in', ['fine-1-key', 'fine-2-key']).execute()
      assert.equal(stored.length, 2)
      const conflict = await handle.db.selectFrom('events').select('id').where('session_id', '=', 'conflict-owner').execute()
      assert.deepEqual(conflict.map((e) => e.id), ['a'], 'nothing of the refused batch was stored')
    })

    it('writes a group without savepoints while no batch fails, and again with one per batch when one does', async () => {
      const savepoints = async (jobs: WriteJob[]) => {
        recording = true
        const outcomes = await writeBatches(handle.db, jobs).finally(() => { recording = false })
        return { ok: outcomes.map((o) => 'result' in o), savepoints: statements.splice(0).filter((q) => /^savepoint /i.test(q)).length }
      }
      assert.deepEqual(await savepoints([job('plain-1-key', [eventRecord('a', now)]), job('plain-2-key', [eventRecord('a', now)])]),
        { ok: [true, true], savepoints: 0 })
      await writeBatches(handle.db, [job('owned-key', [eventRecord('a', now)], { id: 'owned-owner' })])
      const bad = job('owned-key', [eventRecord('b', now)], { id: 'someone-else' })
      // The first try is rolled back whole at the bad batch; the second gives each of the three its savepoint.
      assert.deepEqual(await savepoints([job('plain-3-key', [eventRecord('a', now)]), bad, job('plain-4-key', [eventRecord('a', now)])]),
        { ok: [true, false, true], savepoints: 3 })
      // A group of one needs none: its failure is the group's.
      assert.deepEqual(await savepoints([bad]), { ok: [false], savepoints: 0 })
      const stored = await handle.db.selectFrom('events').innerJoin('sessions', (j) => j.onRef('sessions.id', '=', 'events.session_id'))
        .select('sessions.session_key').where('sessions.session_key', 'in', ['plain-3-key', 'plain-4-key', 'owned-key']).execute()
      assert.deepEqual(stored.map((r) => r.session_key).sort(), ['owned-key', 'plain-3-key', 'plain-4-key'], 'each stored once, the bad batch not at all')
    })

    it('inserts the events of a group\'s live batches together, and counts a retried event once in its visit and issue', async () => {
      const group = { version: 1, fingerprint: 'together-fp', title: 'TypeError: together', culprit: null }
      const batch = (key: string, ids: string[]) => {
        const events = ids.map((id) => eventRecord(id, now, id.endsWith('err') ? 'ERROR' : 'CLICK'))
        return writeJob(projectId, key, events, now, 0, events.map((e) => (e.type === 'ERROR' ? group : null)))
      }
      // Three live visits; the third already holds three of the events its next batch resends.
      await writeBatches(handle.db, [batch('together-1-key', ['s']), batch('together-2-key', ['s']), batch('together-3-key', ['s', 'c1', 'c2', 'c3err'])])
      recording = true
      const outcomes = await writeBatches(handle.db, [
        batch('together-1-key', ['a1', 'a2', 'a3', 'a4', 'a5err']),
        batch('together-2-key', ['b1', 'b2', 'b3', 'b4', 'b5']),
        // The first batch again, in the same group (a retry sent before the first was answered), and a partial resend.
        batch('together-1-key', ['a1', 'a2', 'a3', 'a4', 'a5err']),
        batch('together-3-key', ['c1', 'c2', 'c3err', 'c4', 'c5err']),
      ]).finally(() => { recording = false })
      const inserts = statements.splice(0).filter((q) => /^insert into "events"/i.test(q))
      assert.equal(inserts.length, 1, 'the 20 events of four batches in one INSERT')
      assert.deepEqual(outcomes.map((o) => ('result' in o ? [o.result.accepted, o.result.duplicates] : o.error)), [[5, 0], [5, 0], [0, 5], [2, 3]])
      const sessions = await handle.db.selectFrom('sessions').select(['session_key', 'events_total', 'events_errors'])
        .where('project_id', '=', projectId).where('session_key', 'like', 'together-%').orderBy('session_key').execute()
      assert.deepEqual(sessions.map((r) => [r.session_key, r.events_total, r.events_errors]),
        [['together-1-key', 6, 1], ['together-2-key', 6, 0], ['together-3-key', 6, 2]], 'each event counted once in its visit')
      const issue = await handle.db.selectFrom('issues').select(['events', 'sessions']).where('project_id', '=', projectId)
        .where('title', '=', 'TypeError: together').executeTakeFirstOrThrow()
      assert.deepEqual([issue.events, issue.sessions], [3, 2], 'c3err, a5err and c5err, in two visits')
    })

    it('answers 503 when its queue is full instead of growing without bound', async () => {
      const writer = createWriter(handle.db, { maxQueued: 3 })
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => writer.submit(job(`full-${i}-key`, [eventRecord('a', now)]))))
      await writer.close()
      const refused = outcomes.filter((o) => o.status === 'rejected')
      assert.equal(refused.length, 3)
      assert.ok(refused.every((o) => o.reason instanceof AppError && o.reason.statusCode === 503))
    })

    it('commits every accepted batch before close resolves, and refuses new ones after', async () => {
      const writer = createWriter(handle.db)
      const pending = Array.from({ length: 5 }, (_, i) => writer.submit(job(`close-${i}-key`, [eventRecord('a', now)])))
      await writer.close()
      assert.equal((await Promise.all(pending)).length, 5)
      await assert.rejects(writer.submit(job('late-key', [eventRecord('a', now)])), (e: unknown) => e instanceof AppError && e.statusCode === 503)
    })
  })
}
