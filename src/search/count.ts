/**
 * Exact counts of the session list (list.ts) without counting its rows one by one: a range's visits, or a term's,
 * from the day counters; several terms from their bitmaps (term_bits); and the row count of any query.
 */
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder } from 'kysely'
import type { Database, Db } from '../database.ts'
import { bitsAndAll, bitsCount, unindexed } from '../db/sql.ts'
import { DAY_MS } from '../util/time.ts'
import type { SessionRange } from './filters.ts'

/**
 * The project's visits that have every one of the terms (two or more), any age: their term_bits rows, grouped by chunk,
 * ANDed where every term has the chunk and counted (src/db/bits.ts), ~120 rows a term on 1M visits whatever the terms
 * match. Probing each visit of the rarer term in the other's index cost ~0.7 µs a visit on SQLite: 137–229 ms for
 * has-errors and one country (200,000 visits) on the benchmark's 1M. One grouped scan, not a join per term: SQLite
 * joins at most 64 tables, and `tag.` parameters are not capped.
 */
export async function countWithTerms(db: Db, projectId: string, terms: readonly string[]): Promise<number> {
  const distinct = [...new Set(terms)]
  const chunks = db.selectFrom('term_bits').select(bitsAndAll(db, sql.ref('bits')).as('bits'))
    .where('project_id', '=', projectId).where('term', 'in', distinct)
    .groupBy('chunk').having((eb) => eb.fn.countAll(), '=', distinct.length)
  const { rows } = await sql<{ n: number | string | null }>`select sum(${bitsCount(db, [sql.ref('c.bits')])}) as n from (${chunks}) as c`.execute(db)
  return Number(rows[0]?.n ?? 0)
}

/** count(*) of a query's rows (the planner does not compute the columns a count does not read). */
export async function countRows(db: Db, q: Expression<unknown>): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from (${q}) as c`.execute(db)
  return Number(rows[0]?.n ?? 0)
}

/**
 * Exact number of live sessions in a range — or of those with `term` — without counting rows one by one:
 * whole days come from `session_days` (`term_days`), partial days at the edges are counted on the startedAt
 * index, and sessions past retention that the sweeper has not removed yet (few, by construction) are
 * subtracted through the lastSeenAt index. The parts are subqueries of one statement: one round trip on
 * PostgreSQL where they were two to four, each on the index it was written for (the plan test holds them).
 */
export async function countSessions(db: Db, projectId: string, range: SessionRange, term?: string): Promise<number> {
  return Number((await db.selectNoFrom(liveCount(db, projectId, range, term).as('n')).executeTakeFirstOrThrow()).n)
}

/** countSessions' count as an expression. */
function liveCount(db: Db, projectId: string, range: SessionRange, term?: string): RawBuilder<number | string> {
  const firstFull = range.from === undefined ? undefined : Math.ceil(range.from / DAY_MS)
  const endFull = range.to === undefined ? undefined : Math.floor(range.to / DAY_MS)
  const parts: Expression<unknown>[] = []
  if (firstFull === undefined || endFull === undefined || firstFull < endFull) {
    parts.push(wholeDays(db, projectId, firstFull, endFull, term))
    if (range.from !== undefined && firstFull !== undefined) parts.push(...countStarted(db, projectId, range.from, firstFull * DAY_MS, term))
    if (range.to !== undefined && endFull !== undefined) parts.push(...countStarted(db, projectId, endFull * DAY_MS, range.to, term))
  } else {
    parts.push(...countStarted(db, projectId, range.from, range.to, term))
  }
  // `+started_at` keeps the planner off the startedAt index: the sessions past retention are few and
  // sit at one end of the lastSeenAt index, while a day of startedAt is ~30k rows (5 µs vs 9.5 ms, measured).
  let expired = withTerm(db.selectFrom('sessions').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', projectId).where('last_seen_at', '<', range.cutoff), term)
  if (range.from !== undefined) expired = expired.where(unindexed('started_at'), '>=', range.from)
  if (range.to !== undefined) expired = expired.where(unindexed('started_at'), '<', range.to)
  return sql<number | string>`${sql.join(parts.map((part) => sql`coalesce(${part}, 0)`), sql` + `)} - ${expired}`
}

/** Visits (with `term`) that started on days [first, end), from the day counters (null when none did). */
function wholeDays(db: Db, projectId: string, first: number | undefined, end: number | undefined, term?: string): Expression<unknown> {
  let q = db.selectFrom(term === undefined ? 'session_days' : 'term_days')
    .select((eb) => eb.fn.sum<number | string | null>('sessions').as('n')).where('project_id', '=', projectId)
  if (term !== undefined) q = q.where(sql.ref('term'), '=', term)
  if (first !== undefined) q = q.where('day', '>=', first)
  if (end !== undefined) q = q.where('day', '<', end)
  return q
}

/** Visits (with `term`) that started in [from, to), counted on the startedAt index; none for an empty range. */
function countStarted(db: Db, projectId: string, from?: number, to?: number, term?: string): Expression<unknown>[] {
  if (from !== undefined && to !== undefined && from >= to) return []
  let q = withTerm(db.selectFrom('sessions').select((eb) => eb.fn.countAll<number | string>().as('n')).where('project_id', '=', projectId), term)
  if (from !== undefined) q = q.where('started_at', '>=', from)
  if (to !== undefined) q = q.where('started_at', '<', to)
  return [q]
}

/** Sessions that have `term`, probed per session row (none when term is undefined). */
function withTerm<Q extends SelectQueryBuilder<Database, 'sessions', { n: number | string }>>(q: Q, term: string | undefined): Q {
  if (term === undefined) return q
  return q.where((eb) => eb.exists(eb.selectFrom('session_terms as t').select('t.session_id').whereRef('t.project_id', '=', 'sessions.project_id')
    .where('t.term', '=', term).whereRef('t.session_id', '=', 'sessions.id'))) as Q
}

/** Past-retention visits expiredAmong lists at most. */
const EXPIRED_LISTED = 1000

/**
 * How many of these visits (each once) are past retention, or null when the project has more than EXPIRED_LISTED
 * such visits (a sweep far behind, or over 1,000 visits expiring between two sweeps, 5 minutes by default): the
 * caller then probes its ids, after this one bounded read. The project's visits past retention are few,
 * those expired since the last sweep, and are listed from the lastSeenAt index and looked up among the ids. Probing
 * the ids instead gives the engine all of them as a parameter, which PostgreSQL plans and hashes: 6 ms of url='s 43
 * for its 5,000 ids on the 1M dataset.
 */
export async function expiredAmong(db: Db, projectId: string, cutoff: number, ids: readonly string[]): Promise<number | null> {
  if (ids.length === 0) return 0
  // In lastSeenAt order, so that every planner reads them from that index, however small the table.
  const past = await db.selectFrom('sessions').select('id').where('project_id', '=', projectId).where('last_seen_at', '<', cutoff)
    .orderBy('last_seen_at').limit(EXPIRED_LISTED + 1).execute()
  if (past.length > EXPIRED_LISTED) return null
  if (past.length === 0) return 0
  const listed = new Set(ids)
  return past.filter((r) => listed.has(r.id)).length
}
