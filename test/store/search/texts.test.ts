/**
 * A search by text alone (url=, q=): the same pages and totals as a walk of the list order that reads each visit's
 * text, whichever way plan.ts chose from the count (its unit test holds which); a text too broad is refused.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createProject } from '../../../src/projects/service.ts'
import { SEARCH_TEXT_MATCH_LIMIT } from '../../../src/search/limits.ts'
import { AppError } from '../../../src/errors.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { listSessions, plan, searchSessions, type Plan, type SessionFilters } from '../../../src/search/list.ts'
import { planCosts } from '../../../src/db/sql.ts'
import { writeBatches } from '../../../src/visits/write.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { eventRecord, writeJob } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'

for (const engine of testEngines()) {
  describe(`search by text alone [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    const now = Date.UTC(2026, 10, 21, 15, 0, 0)
    const cutoff = now - 30 * DAY_MS

    before(async () => { handle = await openTestDatabase(engine) })
    after(() => handle.close())

    it('answers a search by text alone as a walk of the list order reads it, from its matches, along the order or by keys', async () => {
      const other = (await createProject(handle.db, { name: 'Texts', domain: 'texts.example' })).id
      // 80 visits, the fourth past retention. Of the 79 live: alpha-word in 2, few enough for the page to read each
      // match's row; beta-word in 9, a walk of the list order that reads keys first (79 ≥ SPARSE_WALK × 9); gamma-word
      // in 19, a walk that reads each visit it passes.
      await writeBatches(handle.db, Array.from({ length: 80 }, (_, i) => {
        const message = [i < 2 ? 'alpha-word' : '', i < 10 ? 'beta-word' : '', i < 20 ? 'gamma-word' : '', 'filler'].join(' ')
        const at = i === 3 ? now - 40 * DAY_MS : now - 1000 * (i + 1)
        return writeJob(other, `text-${String(i).padStart(2, '0')}`, [eventRecord(`text-${String(i)}`, at, 'CLICK', { message })], now, now - 90 * DAY_MS)
      }))
      const keys = (rows: readonly { session_key: string }[]) => rows.map((r) => r.session_key)
      const cases: [string, SessionFilters, number, 'matches' | 'keys' | 'order'][] = [
        ['alpha-word', { q: ['alpha-word'] }, 2, 'matches'], ['beta-word', { q: ['beta-word'] }, 9, 'keys'],
        ['gamma-word', { q: ['gamma-word'] }, 19, 'order'], ['two words', { q: ['gamma-word', 'BETA-word'] }, 9, 'keys'],
      ]
      for (const [name, filters, total, way] of cases) {
        const all = await listSessions(handle.db, other, { cutoff }, { limit: 100, offset: 0 }, filters)
        assert.equal(all.length, total, `${name}: the walk of the list order, probing each visit's text`)
        // The way this engine's plan reads the first page of these counts: each way is read below.
        const counts = { total, visits: 79, driver: { ids: all.map((r) => r.id) }, size: total, probes: 1 }
        const ways: Record<typeof way, Plan> = {
          matches: { drive: 'filter', driver: counts.driver }, keys: { drive: 'order', sparse: true }, order: { drive: 'order', sparse: false },
        }
        assert.deepEqual(plan(counts, { limit: 1, offset: 0 }, planCosts(handle.db)), ways[way], `${name}: read by ${way}`)
        for (const [limit, offset] of [[1, 0], [1, 1], [1, total - 1], [2, total - 1], [total + 2, 0], [1, total], [1, total + 5]] as const) {
          const found = await searchSessions(handle.db, other, { cutoff }, { limit, offset }, filters)
          const where = `${name}, limit ${String(limit)}, offset ${String(offset)}`
          assert.deepEqual([found.total, keys(found.rows)], [total, keys(all.slice(offset, offset + limit))], `${where}: the walk's page and count`)
        }
        const cursor = all[0]
        assert.ok(cursor, `${name}: a first visit`)
        const next = await searchSessions(handle.db, other, { cutoff }, { limit: 3, offset: 0, after: [cursor.last_seen_at, cursor.id] }, filters)
        assert.deepEqual([next.total, keys(next.rows)], [total, keys(all.slice(1, 4))], `${name}, after a cursor: the walk's next page`)
      }
      // More rows of text than SEARCH_TEXT_MATCH_LIMIT holding a page and a word: refused, naming the first text too broad.
      for (let i = 0; i <= SEARCH_TEXT_MATCH_LIMIT; i += 1000) {
        await handle.db.insertInto('session_texts').values(Array.from({ length: 1000 }, (_, j) => ({
          project_id: other, session_id: `ghost-${String(i + j)}`, part: 0, page: '/common-page', body: 'a common-word',
        }))).execute()
      }
      const refused = (name: string) => (e: unknown) => e instanceof AppError && e.statusCode === 400 && e.message.startsWith(`${name} "common-`)
      for (const [filters, name] of [[{ q: ['beta-word', 'common-word'] }, 'q'], [{ url: 'common-page', q: ['common-word'] }, 'url']] as const) {
        await assert.rejects(searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 0 }, filters), refused(name),
          `${JSON.stringify(filters)}: 400 naming the first text too broad (${name})`)
      }
      assert.deepEqual(await searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 0 }, { q: ['absent-word'] }), { total: 0, rows: [] })
    })
  })
}
