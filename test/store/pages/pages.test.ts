import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Kysely } from 'kysely'
import type { Database } from '../../../src/database.ts'
import type { EventRecord } from '../../../src/contract/event-types.ts'
import { MAX_PAGE_LENGTH } from '../../../src/pages/limits.ts'
import { expirePageDays } from '../../../src/pages/index.ts'
import { listPages } from '../../../src/pages/service.ts'
import { createProject, getProject } from '../../../src/projects/service.ts'
import { sweep } from '../../../src/retention/service.ts'
import { DAY_MS, dayOf } from '../../../src/util/time.ts'
import { writeBatches, type WriteJob } from '../../../src/visits/index.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'
import { eventRecord, writeJob } from '../../helpers/factories.ts'

const nav = (id: string, at: number, url: string) => eventRecord(id, at, 'NAVIGATION', { url })
const vital = (id: string, at: number, url: string, name: 'LCP' | 'INP' | 'CLS' | 'FCP' | 'TTFB', value: number) =>
  ({ ...eventRecord(id, at, 'WEB_VITAL', { url }), detail: { name, value } })

for (const engine of testEngines()) {
  describe(`page counters [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    let db: Kysely<Database>
    let projectId = ''
    let n = 0
    // Noon of a UTC day two days ago: a whole day either side of it is within a day of retention's reach.
    const noon = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS + DAY_MS / 2

    before(async () => {
      handle = await openTestDatabase(engine)
      db = handle.db
    })
    after(() => handle.dispose())
    const freshProject = async (retentionDays?: number) => {
      projectId = (await createProject(db, { name: `P${++n}`, domain: 'p.example', retentionDays })).id
    }
    const write = async (...jobs: WriteJob[]) => {
      const outcomes = await writeBatches(db, jobs)
      assert.ok(outcomes.every((o) => 'result' in o), 'stored')
    }
    const job = (key: string, events: EventRecord[]) => writeJob(projectId, key, events, noon)

    /** The project's day counters by day and page, after checking that each total is the sum of its stored days. */
    async function days(): Promise<Record<string, number[]>> {
      const rows = await db.selectFrom('page_days').selectAll().where('project_id', '=', projectId).orderBy('day').orderBy('page').execute()
      const totals = await db.selectFrom('page_totals').selectAll().where('project_id', '=', projectId).orderBy('page').execute()
      const summed = new Map<string, number[]>()
      for (const r of rows) {
        const sum = summed.get(r.page) ?? [0, 0, 0, 0, 0]
        summed.set(r.page, [r.views, r.errors, r.rage_clicks, r.dead_clicks, r.vitals].map((v, i) => v + (sum[i] ?? 0)))
      }
      assert.deepEqual(totals.map((t) => [t.page, [t.views, t.errors, t.rage_clicks, t.dead_clicks, t.vitals]]), [...summed].sort(), 'page_totals')
      const vitals = await db.selectFrom('page_vitals').selectAll().where('project_id', '=', projectId).execute()
      const vitalTotals = await db.selectFrom('page_vital_totals').selectAll().where('project_id', '=', projectId).execute()
      const byBucket = new Map<string, number>()
      for (const v of vitals) byBucket.set(`${v.metric} ${v.page} ${v.bucket}`, (byBucket.get(`${v.metric} ${v.page} ${v.bucket}`) ?? 0) + v.count)
      assert.deepEqual(new Map(vitalTotals.map((v) => [`${v.metric} ${v.page} ${v.bucket}`, v.count])), byBucket, 'page_vital_totals')
      return Object.fromEntries(rows.map((r) => [`${r.day - dayOf(noon)} ${r.page}`, [r.views, r.errors, r.rage_clicks, r.dead_clicks, r.vitals]]))
    }
    const vitalRows = async () => (await db.selectFrom('page_vitals').select(['metric', 'page', 'bucket', 'count']).where('project_id', '=', projectId)
      .orderBy('metric').orderBy('page').orderBy('bucket').execute()).map((r) => [r.metric, r.page, r.bucket, r.count])

    it('counts only newly stored events: a retried batch adds nothing, a partly retried one only what it stored', async () => {
      await freshProject()
      const page = 'https://shop.example/cart'
      const first = [nav('a', noon, page), vital('b', noon + 1, page, 'LCP', 1200)]
      await write(job('retry-key', first))
      // Again whole (the live visit's group insert), then with a new event after the stored ones, then in a group with
      // another visit's batch; every stored event keeps the count it had.
      await write(job('retry-key', first))
      await write(job('retry-key', [...first, eventRecord('c', noon + 2, 'ERROR', { url: page })]))
      await write(job('retry-key', [eventRecord('d', noon + 3, 'RAGE_CLICK', { url: page }), ...first]), job('other-key', [nav('a', noon, page)]))
      assert.deepEqual(await days(), { [`0 ${page}`]: [2, 1, 1, 0, 1] })
      assert.deepEqual(await vitalRows(), [['LCP', page, 1200, 1]])
    })

    it('counts a batch of a group that fails its neighbour, with the neighbour\'s events not at all', async () => {
      await freshProject()
      const page = 'https://shop.example/checkout'
      const owned = (id: string, events: EventRecord[]) => { const j = job('owned-key', events); return { ...j, seed: { ...j.seed, id } } }
      await write(owned('owner', [nav('x', noon, page)]))
      // Its key belongs to another visit: refused, after the group was tried whole without savepoints.
      const bad = owned('someone-else', [nav('z', noon, page)])
      const outcomes = await writeBatches(db, [job('fine-key', [nav('a', noon, page), vital('b', noon, page, 'INP', 80)]), bad])
      assert.deepEqual(outcomes.map((o) => 'result' in o), [true, false])
      assert.deepEqual(await days(), { [`0 ${page}`]: [2, 0, 0, 0, 1] })
    })

    it('counts pages by template: ids as :id, origin lower-cased, query and fragment dropped, cut to the bound', async () => {
      await freshProject()
      const long = `https://shop.example/${'a'.repeat(MAX_PAGE_LENGTH)}`
      await write(job('template-key', [
        nav('a', noon, 'https://Shop.example/orders/1234/items/5f3a9c2e-1b4d-4e8f-9a7b-2c6d8e0f1a3b?utm_source=mail#top'),
        nav('b', noon, 'https://shop.example/orders/99/items/0badc0de42'),
        nav('c', noon, long), nav('d', noon, `${long}/more`),
        // A url only as a fragment has no page; no url, none either.
        nav('e', noon, '#top'), eventRecord('f', noon, 'ERROR'), eventRecord('g', noon, 'HTTP_ERROR', { url: 'https://shop.example/api/1' }),
      ]))
      assert.deepEqual(await days(), { '0 https://shop.example/orders/:id/items/:id': [2, 0, 0, 0, 0], [`0 ${long.slice(0, MAX_PAGE_LENGTH)}`]: [2, 0, 0, 0, 0] })
    })

    it('splits the counts at UTC midnight, and buckets vitals with their ratings kept exact', async () => {
      await freshProject()
      const page = 'https://shop.example/'
      const midnight = (dayOf(noon) + 1) * DAY_MS
      await write(job('days-key', [
        nav('a', midnight - 1, page), vital('b', midnight - 1, page, 'LCP', 2501), vital('c', midnight - 1, page, 'CLS', 0.0123),
        nav('d', midnight, page), vital('e', midnight, page, 'CLS', 0), vital('f', midnight, page, 'LCP', 2500),
        eventRecord('g', midnight, 'DEAD_CLICK', { url: page }),
      ]))
      assert.deepEqual(await days(), { [`0 ${page}`]: [1, 0, 0, 0, 2], [`1 ${page}`]: [1, 0, 0, 1, 2] })
      assert.deepEqual(await vitalRows(), [['CLS', page, 0, 1], ['CLS', page, 0.015, 1], ['LCP', page, 2500, 1], ['LCP', page, 3000, 1]])
      const report = await listPages(db, await getProject(db, projectId), {})
      assert.deepEqual(report.pages.map((p) => [p.lcp, p.cls]), [[{ p75: 3000, good: 1, needsImprovement: 1, poor: 0 }, { p75: 0.015, good: 2, needsImprovement: 0, poor: 0 }]])
    })

    it('retention deletes whole days past it with their share of the totals; a read never counts them meanwhile', async () => {
      await freshProject(2)
      const page = 'https://shop.example/'
      const other = 'https://shop.example/gone'
      await write(job('old-key', [nav('a', noon - DAY_MS, page), nav('b', noon - DAY_MS, other), vital('c', noon - DAY_MS, other, 'TTFB', 300)]))
      await write(job('new-key', [nav('a', noon, page), nav('b', noon + DAY_MS, page), vital('c', noon, page, 'TTFB', 300)]))
      // Two days of retention at noon tomorrow: the day before yesterday's day is wholly past, yesterday's partly.
      const now = noon + 2 * DAY_MS
      const project = await getProject(db, projectId)
      const read = async () => (await listPages(db, project, {}, now)).pages.map((p) => [p.url, p.views, p.ttfb.good])
      assert.deepEqual(await read(), [[page, 2, 1]], 'a day past retention is not counted before the sweep')
      assert.equal(await expirePageDays(db, projectId, now - 2 * DAY_MS), 1)
      assert.equal(await expirePageDays(db, projectId, now - 2 * DAY_MS), 0, 'the day partly within retention stays')
      assert.deepEqual(await days(), { [`0 ${page}`]: [1, 0, 0, 0, 1], [`1 ${page}`]: [1, 0, 0, 0, 0] })
      assert.deepEqual(await vitalRows(), [['TTFB', page, 300, 1]], 'the gone page\'s totals went with their day')
      assert.deepEqual(await read(), [[page, 2, 1]])
      await sweep(db, now + DAY_MS)
      assert.deepEqual(await days(), { [`1 ${page}`]: [1, 0, 0, 0, 0] }, 'the sweep deletes a day once all of it is past')
    })
  })
}
