/**
 * A search by text alone (src/visits/text-alone.ts: one statement on PostgreSQL; SQLite answers it through
 * list.ts searchByPlan's general plan): the same pages and totals as a walk of the list order that reads each visit's text,
 * whichever way the count chose to read the page.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CompiledQuery } from 'kysely'
import { createProject } from '../../../src/projects/service.ts'
import { SEARCH_TEXT_MATCH_LIMIT } from '../../../common/limits.ts'
import { AppError } from '../../../src/errors.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { listSessions, type SessionFilters } from '../../../src/search/list.ts'
import { searchSessions } from '../../../src/search/search.ts'
import { writeBatches } from '../../../src/visits/write.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { eventRecord, writeJob } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'

for (const engine of testEngines()) {
  describe(`search by text alone [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    const now = Date.UTC(2026, 10, 21, 15, 0, 0)
    const cutoff = now - 30 * DAY_MS
    /** Every statement run, as the engine gets it; the last with its parameters. */
    const statements: string[] = []
    let last: CompiledQuery | undefined

    before(async () => {
      handle = await openTestDatabase(engine, { onQuery: (q) => { statements.push(q.sql); last = q } })
    })
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
      /** Which way of reading the page PostgreSQL's one statement took (its branches in order), from its plan. */
      const branchRead = async (): Promise<number> => {
        assert.ok(last)
        const { rows: [explained] } = await handle.db.executeQuery<{ 'QUERY PLAN': unknown }>(
          CompiledQuery.raw(`explain (analyze, format json) ${last.sql}`, [...last.parameters]))
        type Node = { 'Node Type': string; 'Actual Loops'?: number; Plans?: Node[] }
        const find = (n: Node): Node | undefined => (n['Node Type'] === 'Append' ? n : n.Plans?.map(find).find((x) => x !== undefined))
        const append = find((explained?.['QUERY PLAN'] as [{ Plan: Node }])[0].Plan)
        // A branch ran when a scan of a table or of the matches in it did: the others' conditions were checked once, before them.
        const ran = (n: Node): boolean => (/^(Seq|Index|Index Only|Bitmap Heap|CTE) Scan$/.test(n['Node Type']) && (n['Actual Loops'] ?? 0) > 0)
          || (n.Plans ?? []).some(ran)
        const read = (append?.Plans ?? []).flatMap((n, i) => (ran(n) ? [i] : []))
        assert.equal(read.length, 1, `one branch read: ${JSON.stringify(read)}`)
        return read[0] ?? -1
      }
      const cases: [string, SessionFilters, number, string][] = [
        ['alpha-word', { q: ['alpha-word'] }, 2, 'from the matches'], ['beta-word', { q: ['beta-word'] }, 9, 'by keys'],
        ['gamma-word', { q: ['gamma-word'] }, 19, 'along the order'], ['two words', { q: ['gamma-word', 'BETA-word'] }, 9, 'by keys'],
      ]
      for (const [name, filters, total, way] of cases) {
        const all = await listSessions(handle.db, other, { cutoff }, { limit: 100, offset: 0 }, filters)
        assert.equal(all.length, total, `${name}: the walk of the list order, probing each visit's text`)
        for (const [limit, offset] of [[1, 0], [1, 1], [1, total - 1], [2, total - 1], [total + 2, 0], [1, total], [1, total + 5]] as const) {
          statements.length = 0
          const found = await searchSessions(handle.db, other, { cutoff }, { limit, offset }, filters)
          const where = `${name}, limit ${String(limit)}, offset ${String(offset)}`
          assert.deepEqual([found.total, keys(found.rows)], [total, keys(all.slice(offset, offset + limit))], `${where}: the walk's page and count`)
          if (engine === 'postgres') assert.equal(statements.length, 1, `${where}: one statement`)
          if (engine === 'postgres' && limit === 1 && offset === 0) {
            assert.equal(await branchRead(), ['from the matches', 'along the order', 'by keys'].indexOf(way), `${name}: read ${way}`)
          }
        }
        const cursor = all[0]
        assert.ok(cursor, `${name}: a first visit`)
        statements.length = 0
        const next = await searchSessions(handle.db, other, { cutoff }, { limit: 3, offset: 0, after: [cursor.last_seen_at, cursor.id] }, filters)
        assert.deepEqual([next.total, keys(next.rows)], [total, keys(all.slice(1, 4))], `${name}, after a cursor: the walk's next page`)
        if (engine === 'postgres') assert.equal(statements.length, 1, `${name}, after a cursor: one statement`)
      }
      // More rows of text than SEARCH_TEXT_MATCH_LIMIT holding a page and a word: refused, naming the first text too broad.
      for (let i = 0; i <= SEARCH_TEXT_MATCH_LIMIT; i += 1000) {
        await handle.db.insertInto('session_texts').values(Array.from({ length: 1000 }, (_, j) => ({
          project_id: other, session_id: `ghost-${String(i + j)}`, part: 0, page: '/common-page', body: 'a common-word',
        }))).execute()
      }
      const refused = (name: string) => (e: unknown) => e instanceof AppError && e.statusCode === 400 && e.message.startsWith(`${name} "common-`)
      for (const [filters, name] of [[{ q: ['beta-word', 'common-word'] }, 'q'], [{ url: 'common-page', q: ['common-word'] }, 'url']] as const) {
        statements.length = 0
        await assert.rejects(searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 0 }, filters), refused(name),
          `${JSON.stringify(filters)}: 400 naming the first text too broad (${name})`)
        if (engine === 'postgres') assert.equal(statements.length, 1, `${JSON.stringify(filters)}: refused after one statement`)
      }
      statements.length = 0
      assert.deepEqual(await searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 0 }, { q: ['absent-word'] }), { total: 0, rows: [] })
      if (engine === 'postgres') assert.equal(statements.length, 1, 'one statement')
    })
  })
}
