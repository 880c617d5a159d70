import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createProject } from '../../../src/projects/service.ts'
import { deleteExpired } from '../../../src/visits/delete.ts'
import { countSessions } from '../../../src/search/count.ts'
import { listSessions } from '../../../src/search/list.ts'
import { DAY_MS, dayOf } from '../../../src/util/time.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { eventRecord, storeVisit } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}



for (const engine of testEngines()) {
  describe(`visits store [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    let projectId: string
    const now = Date.UTC(2026, 10, 21, 15, 0, 0)
    const cutoff = now - 30 * DAY_MS
    const rows: { id: string; startedAt: number; lastSeenAt: number }[] = []

    before(async () => {
      handle = await openTestDatabase(engine)
      projectId = (await createProject(handle.db, { name: 'Store', domain: 'store.example' })).id
      const other = (await createProject(handle.db, { name: 'Other', domain: 'other.example' })).id
      const random = rng(42)
      // Sessions from 34 days ago to now: some past retention, many crossing midnight.
      for (let i = 0; i < 300; i++) {
        const start = now - Math.floor(random() * 34 * DAY_MS)
        const end = Math.min(now, start + Math.floor(random() * 3 * 3_600_000))
        const { sessionId } = await storeVisit(handle.db, projectId, `store-${i}`, [eventRecord('a', start, 'ERROR'), eventRecord('b', end)], now)
        rows.push({ id: sessionId, startedAt: start, lastSeenAt: end })
      }
      // Another project's sessions must never be counted.
      await storeVisit(handle.db, other, 'other-1', [eventRecord('a', now - 1000)], now)
    })
    after(() => handle.dispose())

    const naive = (from: number | undefined, to: number | undefined) => rows
      .filter((r) => r.lastSeenAt >= cutoff && (from === undefined || r.startedAt >= from) && (to === undefined || r.startedAt < to))
      .sort((a, b) => b.lastSeenAt - a.lastSeenAt || (a.id < b.id ? 1 : -1))

    it('counts exactly what a full count(*) would, for whole days, partial days and open ranges', async () => {
      const random = rng(7)
      const ranges: [number | undefined, number | undefined][] = [[undefined, undefined]]
      for (let d = 0; d < 35; d++) {
        const day = (dayOf(now) - d) * DAY_MS
        ranges.push([day, day + DAY_MS])
      }
      for (let i = 0; i < 60; i++) {
        const a = now - Math.floor(random() * 36 * DAY_MS)
        const b = a + Math.floor(random() * 10 * DAY_MS)
        ranges.push([a, b], [a, undefined], [undefined, b])
      }
      for (const [from, to] of ranges) {
        const counted = await countSessions(handle.db, projectId, { from, to, cutoff })
        assert.equal(counted, naive(from, to).length, `from=${String(from)} to=${String(to)}`)
      }
    })

    it('lists in lastSeenAt, id descending order with exact paging, on the day index and off it', async () => {
      const day = (dayOf(now) - 3) * DAY_MS
      for (const [from, to] of [[undefined, undefined], [day, day + DAY_MS], [day - DAY_MS / 2, day + DAY_MS]] as const) {
        const expected = naive(from, to).map((r) => r.id)
        const got: string[] = []
        for (let offset = 0; offset < expected.length + 7; offset += 7) {
          const page = await listSessions(handle.db, projectId, { from, to, cutoff }, { limit: 7, offset })
          got.push(...page.map((r) => r.id))
        }
        assert.deepEqual(got, expected)
      }
    })

    it('gives a new visit an id that sorts after those of visits made before it, in the database\'s own order', async () => {
      const ordered = (await createProject(handle.db, { name: 'Ordered', domain: 'ordered.example' })).id
      // Times whose id's last time digit crosses each class of characters (9 to A, Z to _, _ to a) and carries: only
      // byte order, which PostgreSQL's "C" and SQLite's BINARY collations are, keeps all of them in order.
      const base = Math.floor(now / 64) * 64
      const made: string[] = []
      for (const [i, offset] of [10, 11, 36, 37, 38, 63, 64].entries()) {
        made.push((await storeVisit(handle.db, ordered, `ordered-${i}`, [eventRecord('a', now - 1000)], base + offset)).sessionId)
      }
      const sorted = await handle.db.selectFrom('sessions').select('id').where('project_id', '=', ordered).orderBy('id').execute()
      assert.deepEqual(sorted.map((r) => r.id), made)
    })

    it('keeps day counters exact when a late event moves startedAt to an earlier day', async () => {
      const start = Date.UTC(2026, 10, 20, 0, 10)
      const { sessionId } = await storeVisit(handle.db, projectId, 'late-event', [eventRecord('x', start)], now)
      rows.push({ id: sessionId, startedAt: start, lastSeenAt: start })
      const earlier = start - 20 * 60_000 // 23:50 the day before
      await storeVisit(handle.db, projectId, 'late-event', [eventRecord('y', earlier)], now)
      const row = rows.at(-1)
      assert.ok(row)
      row.startedAt = earlier
      for (const d of [dayOf(earlier), dayOf(start)]) {
        const from = d * DAY_MS
        assert.equal(await countSessions(handle.db, projectId, { from, to: from + DAY_MS, cutoff }), naive(from, from + DAY_MS).length)
      }
      await assertDayCountersExact()
    })

    it('keeps day counters exact when sessions are deleted', async () => {
      const expired = rows.filter((r) => r.lastSeenAt < cutoff)
      assert.ok(expired.length > 0, 'the data set has sessions past retention')
      // Two deleters racing over the same sessions (two processes sweeping): counted once.
      const deleted = await Promise.all([
        deleteExpired(handle.db, projectId, cutoff, 1000),
        deleteExpired(handle.db, projectId, cutoff, 1000),
      ])
      assert.equal(deleted[0] + deleted[1], expired.length)
      await assertDayCountersExact()
      const left = await handle.db.selectFrom('events').select('session_id')
        .where('project_id', '=', projectId).where('session_id', 'in', expired.map((e) => e.id)).execute()
      assert.deepEqual(left, [], 'their events are gone too')
      assert.equal(await countSessions(handle.db, projectId, { cutoff }), naive(undefined, undefined).length)
    })

    async function assertDayCountersExact() {
      const actual = await handle.db.selectFrom('sessions').select(['start_day', (eb) => eb.fn.countAll<number | string>().as('n')])
        .where('project_id', '=', projectId).groupBy('start_day').orderBy('start_day').execute()
      const counters = await handle.db.selectFrom('session_days').select(['day', 'sessions'])
        .where('project_id', '=', projectId).orderBy('day').execute()
      assert.deepEqual(counters.map((c) => [c.day, c.sessions]), actual.map((a) => [a.start_day, Number(a.n)]))
    }
  })
}
