import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SEARCH_TEXT_MATCH_LIMIT, SEARCH_TEXT_PROBE_MAX } from '../../../src/search/limits.ts'
import { postgresSql } from '../../../src/db/postgres/dialect.ts'
import { sqliteSql } from '../../../src/db/sqlite/dialect.ts'
import { plan, readsTextIndex, SPARSE_WALK, tooBroadText, type PlanCounts } from '../../../src/search/plan.ts'

const [sqlite, postgres] = [sqliteSql.planCosts, postgresSql.planCosts]
const first = { limit: 50, offset: 0 }
/** A project of 1M visits, one filter, its own index the driver. */
const counts = (c: Partial<PlanCounts>): PlanCounts => ({ total: 1000, visits: 1_000_000, size: 1000, probes: 1, driver: { term: 't' }, ...c })

describe('the search planner', () => {
  it('walks the list order when many visits match: the first page stops after a few entries', () => {
    // 200,000 of 1M match: 250 entries walked against 200,000 rows read from the driver.
    assert.deepEqual(plan(counts({ total: 200_000, size: 200_000 }), first, sqlite), { drive: 'order', sparse: false })
    assert.deepEqual(plan(counts({ total: 200_000, size: 200_000 }), first, postgres), { drive: 'order', sparse: false })
  })

  it('walks by keys first when few of the visits walked match (SPARSE_WALK or more for each row of the page)', () => {
    const sparse = { total: 1_000_000 / SPARSE_WALK, size: 1_000_000 / SPARSE_WALK }
    assert.deepEqual(plan(counts(sparse), first, sqlite), { drive: 'order', sparse: true })
    assert.deepEqual(plan(counts({ ...sparse, total: sparse.total + 1 }), first, sqlite), { drive: 'order', sparse: false })
  })

  it('starts from the driver when reading its rows costs less than the walk, by each engine\'s row weight', () => {
    // 1,000 matches: a walk passes 50,000 entries; the driver's rows cost 1,000 × rowRead.
    assert.deepEqual(plan(counts({}), first, sqlite), { drive: 'filter', driver: { term: 't' } })
    // 6,000 matches: a walk passes ~8,300 entries, against 60,000 (SQLite) or 30,000 (PostgreSQL) for the rows.
    assert.deepEqual(plan(counts({ total: 6000, size: 6000, driver: { issue: 'i' } }), first, sqlite), { drive: 'order', sparse: true })
    // Two filters: the walk probes both on every entry, the driver only the other on its visits.
    assert.deepEqual(plan(counts({ total: 3000, size: 3000, probes: 2 }), first, sqlite), { drive: 'filter', driver: { term: 't' } })
  })

  it('over a from/to range counts every visit of the driver as read (only the row knows the range)', () => {
    const ranged = counts({ total: 100, size: 40_000, visits: 30_000 })
    assert.deepEqual(plan({ ...ranged, range: undefined }, first, sqlite), { drive: 'filter', driver: { term: 't' } })
    assert.deepEqual(plan({ ...ranged, range: 'day' }, first, sqlite), { drive: 'order', sparse: true })
  })

  it('lists a rare filter\'s visits once and walks the order probing that list where the engine can (PostgreSQL)', () => {
    // type=: 5,000 of 1M visits, listed at 0.33 a visit, against 5,000 × 5 rows or ~10,000 entries each probed.
    const rare = counts({ total: 5000, size: 5000, driver: { term: 'type:USER_REPORT' } })
    assert.deepEqual(plan(rare, first, postgres), { drive: 'listed', driver: { term: 'type:USER_REPORT' }, sparse: true })
    assert.deepEqual(plan(rare, first, sqlite), { drive: 'order', sparse: true }, 'SQLite never lists')
    assert.deepEqual(plan({ ...rare, size: 20_000, total: 20_000 }, first, postgres), { drive: 'order', sparse: true }, 'past mostVisits')
    assert.equal(plan({ ...rare, driver: { ids: ['a'] } }, first, postgres).drive, 'order', 'ids are a list already')
  })

  it('without a driver walks the order, or the from/to range\'s own index when filters are left to read per visit', () => {
    const none = counts({ driver: undefined, size: Infinity, total: 50, visits: 2000 })
    assert.deepEqual(plan(none, first, sqlite), { drive: 'order', sparse: true })
    assert.deepEqual(plan({ ...none, range: 'span' }, first, sqlite), { drive: 'filter' })
    assert.deepEqual(plan({ ...none, range: 'day' }, first, sqlite), { drive: 'order', sparse: true }, 'one UTC day has its own list order')
    assert.deepEqual(plan({ ...none, range: 'span', probes: 0 }, first, sqlite), { drive: 'order', sparse: true }, 'nothing to probe')
  })

  it('reads a search by text alone from its matches when few, else along the order', () => {
    const text = (total: number) => counts({ total, size: total, driver: { ids: ['a', 'b'] }, texts: [total], visits: 79 })
    assert.deepEqual(plan(text(2), { limit: 1, offset: 0 }, postgres), { drive: 'filter', driver: { ids: ['a', 'b'] } })
    assert.deepEqual(plan(text(9), { limit: 1, offset: 0 }, postgres), { drive: 'order', sparse: true })
    assert.deepEqual(plan(text(19), { limit: 1, offset: 0 }, postgres), { drive: 'order', sparse: false })
    assert.equal(readsTextIndex(Infinity, Infinity), true, 'no other filter nor range: the trigram index')
    assert.equal(readsTextIndex(SEARCH_TEXT_PROBE_MAX, Infinity), false, 'a filter that leaves few visits: read per visit')
    assert.equal(readsTextIndex(Infinity, SEARCH_TEXT_PROBE_MAX + 1), true)
  })

  it('refuses the first text filter too broad to count, whatever the rest says; reads nothing past the last match', () => {
    const broad = counts({ texts: [3, SEARCH_TEXT_MATCH_LIMIT + 1, SEARCH_TEXT_MATCH_LIMIT + 1], total: 0 })
    assert.deepEqual(plan(broad, first, sqlite), { drive: 'refuse', text: 1 })
    assert.equal(tooBroadText([SEARCH_TEXT_MATCH_LIMIT]), undefined)
    assert.equal(tooBroadText(undefined), undefined)
    assert.deepEqual(plan(counts({ total: 50 }), { limit: 50, offset: 50 }, sqlite), { drive: 'none' })
    assert.deepEqual(plan(counts({ total: 0 }), first, postgres), { drive: 'none' })
  })
})
