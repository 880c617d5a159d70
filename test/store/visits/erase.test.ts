import assert from 'node:assert/strict'
import { gzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../../src/database.ts'
import type { EventRecord } from '../../../src/contract/event-types.ts'
import { createProject } from '../../../src/projects/service.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { eraseVisits } from '../../../src/visits/delete.ts'
import type { EventGroup } from '../../../src/issues/store.ts'
import { countSessions } from '../../../src/search/count.ts'
import { findSession } from '../../../src/visits/read.ts'
import { latestIssueEvent, listIssues } from '../../../src/issues/read.ts'
import { writeBatches, type ChunkRecord } from '../../../src/visits/write.ts'
import { openTestDatabase, storedTermBits, storedTerms } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'
import { eventRecord, writeJob } from '../../helpers/factories.ts'
import { eventually } from '../../helpers/wait.ts'

const group = (fingerprint: string): EventGroup => ({ version: 1, fingerprint, title: `Error ${fingerprint}`, culprit: null })
const error = (id: string, at: number, fp: string) => eventRecord(id, at, 'ERROR', { message: fp })

/** A stored recording chunk of the visit (rows are what erasure must delete; its content does not matter here). */
const chunk = (id: string, at: number): ChunkRecord => {
  const data = gzipSync('[]')
  return { id, started_at: at, ended_at: at + 1000, events: 2, full_snapshot: 1, bytes: data.length, data, dropped: null }
}

for (const engine of testEngines()) {
  describe(`eraseVisits [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    let db: Kysely<Database>
    const now = Date.UTC(2026, 10, 21, 15, 0, 0)
    const day = Math.floor(now / DAY_MS)

    /** Stores a visit with its visitor's address and user, each ERROR grouped by the fingerprint in its message. */
    async function visit(
      projectId: string, key: string, events: EventRecord[], who: { ip?: string; user?: string } = {}, chunks: ChunkRecord[] = [],
    ): Promise<string> {
      const job = writeJob(projectId, key, events, now, 0, events.map((e) => (e.type === 'ERROR' ? group(e.message ?? '') : null)))
      const [outcome] = await writeBatches(db, [{
        ...job,
        seed: { ...job.seed, ip: who.ip ?? null, user: who.user === undefined ? null : { id: who.user, traits: null } },
        ...(chunks.length > 0 && { recording: { chunks, maxSessionBytes: 1e9 } }),
      }])
      assert.ok(outcome && 'result' in outcome, 'stored')
      return outcome.result.sessionId
    }

    const count = async (table: 'events' | 'recording_chunks' | 'session_texts' | 'session_terms' | 'issue_sessions', projectId: string, ids: string[]) =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('project_id', '=', projectId).where('session_id', 'in', ids).executeTakeFirstOrThrow()).n)

    /**
     * Every counter of the project equals what its rows say: visits per start day (session_days) and per term and
     * start day (term_days), each term's visits in its bitmaps (term_bits), each issue's events, visits and events per day, and its pointer at a stored event.
     * Fails naming the first that drifted.
     */
    async function assertCountersExact(projectId: string): Promise<void> {
      const days = await db.selectFrom('session_days').select(['day', 'sessions']).where('project_id', '=', projectId).orderBy('day').execute()
      const actualDays = await db.selectFrom('sessions').select(['start_day as day', (eb) => eb.fn.countAll<number | string>().as('n')])
        .where('project_id', '=', projectId).groupBy('start_day').orderBy('start_day').execute()
      assert.deepEqual(days.map((d) => [d.day, d.sessions]), actualDays.map((d) => [d.day, Number(d.n)]), 'session_days')
      const termDays = await db.selectFrom('term_days').select(['term', 'day', 'sessions']).where('project_id', '=', projectId)
        .orderBy('term').orderBy('day').execute()
      const actualTerms = await db.selectFrom('session_terms as t')
        .innerJoin('sessions as s', (j) => j.onRef('s.project_id', '=', 't.project_id').onRef('s.id', '=', 't.session_id'))
        .select(['t.term', 's.start_day', (eb) => eb.fn.countAll<number | string>().as('n')]).where('t.project_id', '=', projectId)
        .groupBy(['t.term', 's.start_day']).orderBy('t.term').orderBy('s.start_day').execute()
      assert.deepEqual(termDays.map((d) => [d.term, d.day, d.sessions]), actualTerms.map((d) => [d.term, d.start_day, Number(d.n)]), 'term_days')
      assert.deepEqual(await storedTermBits(db, projectId), await storedTerms(db, projectId), 'term_bits')
      for (const issue of await listIssues(db, projectId, {}, { limit: 200, offset: 0 })) {
        const events = await db.selectFrom('events').select(['session_id', sql<number | string>`created_at / ${DAY_MS}`.as('day')])
          .where('project_id', '=', projectId).where('issue_id', '=', issue.id).execute()
        assert.equal(issue.events, events.length, `${issue.title}: events`)
        assert.equal(issue.sessions, new Set(events.map((e) => e.session_id)).size, `${issue.title}: visits`)
        const perDay = new Map<number, number>()
        for (const e of events) perDay.set(Math.floor(Number(e.day)), (perDay.get(Math.floor(Number(e.day))) ?? 0) + 1)
        const issueDays = await db.selectFrom('issue_days').select(['day', 'events']).where('project_id', '=', projectId)
          .where('issue_id', '=', issue.id).orderBy('day').execute()
        assert.deepEqual(issueDays.map((d) => [d.day, d.events]), [...perDay].sort(([a], [b]) => a - b), `${issue.title}: issue_days`)
        const latest = await latestIssueEvent(db, projectId, issue.id, 0)
        assert.equal(latest === undefined, events.length === 0, `${issue.title}: points at a stored event while it has one`)
      }
    }

    before(async () => {
      handle = await openTestDatabase(engine)
      db = handle.db
    })
    after(() => handle.dispose())

    it('erases a user\'s visits with their events and recordings, and takes them out of every counter', async () => {
      const project = (await createProject(db, { name: 'Erase', domain: 'erase.example' })).id
      const other = (await createProject(db, { name: 'Bystander', domain: 'bystander.example' })).id
      const first = await visit(project, 'u1-first', [error('a', now - DAY_MS, 'X'), error('b', now - 60_000, 'X'), eventRecord('c', now - 50_000, 'NAVIGATION', { url: 'https://erase.example/cart' })],
        { ip: '203.0.113.7', user: 'u1' }, [chunk('r0', now - 60_000)])
      const stays = await visit(project, 'u2-visit', [error('a', now - 30_000, 'X'), error('b', now - 20_000, 'Y')], { ip: '198.51.100.1', user: 'u2' })
      // u1's latest error is the issue's latest event: erasing it must point the issue at u2's.
      const second = await visit(project, 'u1-second', [error('a', now - 10_000, 'X')], { ip: '203.0.113.7', user: 'u1' })
      const theirs = await visit(other, 'u1-elsewhere', [error('a', now - 10_000, 'X')], { ip: '203.0.113.7', user: 'u1' })
      const [x] = (await listIssues(db, project, {}, { limit: 10, offset: 0 })).filter((i) => i.title === 'Error X')
      assert.ok(x)
      assert.deepEqual([x.events, x.sessions, (await latestIssueEvent(db, project, x.id, 0))?.session_id], [4, 3, second])
      assert.equal(await countSessions(db, project, { cutoff: 0 }), 3)
      for (const table of ['events', 'recording_chunks', 'session_texts', 'session_terms', 'issue_sessions'] as const) {
        assert.ok(await count(table, project, [first, second]) > 0, `the visits have ${table} rows to erase`)
      }

      assert.equal(await eraseVisits(db, project, { userId: 'u1' }), 2)

      for (const id of [first, second]) assert.equal(await findSession(db, project, id, 0), undefined, 'the visit is gone')
      for (const table of ['events', 'recording_chunks', 'session_texts', 'session_terms', 'issue_sessions'] as const) {
        assert.equal(await count(table, project, [first, second]), 0, `no ${table} row of an erased visit is left`)
      }
      const after = (await listIssues(db, project, {}, { limit: 10, offset: 0 })).find((i) => i.id === x.id)
      assert.deepEqual([after?.events, after?.sessions], [1, 1])
      assert.equal((await latestIssueEvent(db, project, x.id, 0))?.session_id, stays, 'the issue points at the latest event left')
      assert.deepEqual(await db.selectFrom('issue_days').select(['day', 'events']).where('project_id', '=', project).where('issue_id', '=', x.id).execute(),
        [{ day, events: 1 }], 'the day of yesterday\'s erased error is gone, today keeps u2\'s')
      assert.equal(await countSessions(db, project, { cutoff: 0 }), 1)
      await assertCountersExact(project)

      assert.ok(await findSession(db, other, theirs, 0), 'the same user in another project is not touched')
      const [elsewhere] = await listIssues(db, other, {}, { limit: 10, offset: 0 })
      assert.deepEqual([elsewhere?.events, elsewhere?.sessions], [1, 1])
      await assertCountersExact(other)

      assert.equal(await eraseVisits(db, project, { userId: 'u1' }), 0, 'a second run deletes nothing')
      assert.deepEqual((await listIssues(db, project, {}, { limit: 10, offset: 0 })).map((i) => [i.title, i.events, i.sessions]).sort(),
        [['Error X', 1, 1], ['Error Y', 1, 1]], 'and changes no counter')
      await assertCountersExact(project)
    })

    it('erases by stored IP address in chunks of its own transactions, each reported, exactly', async () => {
      const project = (await createProject(db, { name: 'Chunks', domain: 'chunks.example' })).id
      const office = '2001:db8:85a3::'
      const ids: string[] = []
      // Seven visits over three days from one address (a truncating project's network), and a neighbour's.
      for (let i = 0; i < 7; i++) {
        ids.push(await visit(project, `office-${i}`, [error(`e${i}`, now - (i % 3) * DAY_MS - i, i % 2 === 0 ? 'Even' : 'Odd')], { ip: office }))
      }
      const neighbour = await visit(project, 'neighbour', [error('n', now, 'Even')], { ip: '2001:db8:85a4::' })
      const progress: number[] = []
      assert.equal(await eraseVisits(db, project, { ip: office }, { chunk: 3, onProgress: (n) => progress.push(n) }), 7)
      assert.deepEqual(progress, [3, 6, 7], 'three transactions of at most three visits')
      assert.equal(await count('events', project, ids), 0)
      assert.ok(await findSession(db, project, neighbour, 0), 'another address is not touched')
      assert.deepEqual((await listIssues(db, project, {}, { limit: 10, offset: 0 })).map((i) => [i.title, i.events, i.sessions]).sort(),
        [['Error Even', 1, 1], ['Error Odd', 0, 0]])
      await assertCountersExact(project)
      assert.equal(await eraseVisits(db, project, { ip: office }, { chunk: 3 }), 0)
    })

    it('erases one visit by id, past retention too, and only in its own project', async () => {
      const project = (await createProject(db, { name: 'One', domain: 'one.example' })).id
      const other = (await createProject(db, { name: 'Two', domain: 'two.example' })).id
      const old = await visit(project, 'old-visit', [error('a', now - 400 * DAY_MS, 'Old')])
      const kept = await visit(project, 'kept-visit', [error('a', now, 'Old')])
      assert.equal(await eraseVisits(db, other, { sessionId: old }), 0, 'another project cannot erase it')
      assert.equal(await eraseVisits(db, project, { sessionId: 'no-such-visit' }), 0)
      assert.equal(await eraseVisits(db, project, { sessionId: 'nul\u0000' }), 0, 'an id no row can hold matches nothing, unasked')
      assert.equal(await eraseVisits(db, project, { sessionId: old }), 1)
      assert.equal(await findSession(db, project, old, 0), undefined)
      assert.ok(await findSession(db, project, kept, 0))
      await assertCountersExact(project)
      assert.equal(await eraseVisits(db, project, { sessionId: old }), 0)
    })

    it('runs again when it deadlocks with a group of writes, and keeps every counter exact',
      { skip: engine === 'postgres' ? false : 'SQLite writes one transaction at a time: nothing deadlocks' }, async () => {
        const project = (await createProject(db, { name: 'Deadlock', domain: 'deadlock.example' })).id
        const gone = await visit(project, 'deadlocked', [error('a', now, 'Locked')])
        const issue = (await db.selectFrom('issues').select('id').where('project_id', '=', project).executeTakeFirstOrThrow()).id
        let erasing: Promise<{ erased: number } | { failed: unknown }> | undefined
        // A group of writes locks the day counter, then the issue row; the erasure takes the issue row, then waits for
        // the counter. PostgreSQL looks for a deadlock after a second of waiting, so the erasure, which waited first,
        // finds it and is rolled back; the group's update then goes through, and the group commits.
        await db.transaction().execute(async (trx) => {
          await trx.updateTable('session_days').set((eb) => ({ sessions: eb('sessions', '+', 0) })).where('project_id', '=', project).where('day', '=', day).execute()
          erasing = eraseVisits(db, project, { sessionId: gone }).then((erased) => ({ erased }), (failed: unknown) => ({ failed }))
          await eventually(async () => (await sql<{ waiting: number }>`select count(*)::int as waiting from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(db)).rows[0]?.waiting || null, 'the erasure waiting for the counter')
          await trx.updateTable('issues').set((eb) => ({ events: eb('events', '+', 0) })).where('project_id', '=', project).where('id', '=', issue).execute()
        })
        assert.deepEqual(await erasing, { erased: 1 })
        assert.equal(await findSession(db, project, gone, 0), undefined)
        await assertCountersExact(project)
      })
  })
}
