/**
 * The session list's reads: a page in list order, its exact total, and the search filters (API v1 search,
 * the dashboard, an issue's visits). The rest of a visit's reads are in read.ts, which re-exports these.
 */
import { sql, type Expression, type RawBuilder, type Selectable, type SelectQueryBuilder } from 'kysely'
import type { Database, Db } from '../db/database.ts'
import { SEARCH_TEXT_MATCH_LIMIT, SEARCH_TEXT_PROBE_MAX } from '../../common/limits.ts'
import { rowAfter, textContains, textMatchRows, textProbe, textSessions, unindexed, unindexedText } from '../db/sql.ts'
import { invalidParameter } from '../errors.ts'
import { DAY_MS } from '../shared/time.ts'
import type { SessionTable } from './tables.ts'
import { FACT_COLUMNS } from './facts.ts'

/** A session as the reads return it: its own columns, with its visitor facts (facts.ts) after its times. */
export const sessionColumns = [
  'id', 'session_key', 'started_at', 'last_seen_at', ...FACT_COLUMNS,
  'events_total', 'events_errors', 'events_slow', 'recording_chunks', 'recording_bytes', 'recording_dropped',
] as const satisfies readonly (keyof SessionTable)[]
export type SessionListRow = Pick<Selectable<SessionTable>, (typeof sessionColumns)[number]>

/** Sessions whose startedAt is in [from, to) and that are not past `cutoff` (retention). */
export interface SessionRange {
  from?: number
  to?: number
  cutoff: number
}

/**
 * One page of sessions, most recent activity first, id breaking ties so pages never overlap.
 * A range that is exactly one UTC day walks `sessions_day_last_seen_idx`, already in list order.
 * With filters, `plan` says where the planner starts (searchSessions decides it from the exact count).
 * Given `json`, each row is the session as the API writes it, made by the statement (SessionJsonRow).
 */
export function listSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters?: SessionFilters, plan?: Plan,
): Promise<SessionListRow[]>
export function listSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters, plan: Plan | undefined, json: RawBuilder<string>,
): Promise<SessionJsonRow[]>
export function listSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters, plan: Plan | undefined, json: RawBuilder<string> | undefined,
): Promise<SessionListRow[] | SessionJsonRow[]>
export function listSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters = {},
  plan: Plan = defaultPlan(filters), json?: RawBuilder<string>,
): Promise<SessionListRow[] | SessionJsonRow[]> {
  // From the filter, `+last_seen_at` keeps the planner off the project's lastSeenAt index: it starts from the
  // filter's index or subquery and sorts what it found. (Sorting ids alone first was slower: SQLite then read the
  // whole lastSeenAt index as a covering index, 340 ms instead of 25 ms for 5,000 matches of 1M.)
  const order = plan.drive === 'order' ? 'last_seen_at' : unindexed('last_seen_at')
  const q = liveSessions(db, projectId, range, filters, plan, page.after)
    .orderBy(order, 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset)
  return json === undefined ? q.execute() : q.clearSelect().select(['id', 'last_seen_at', json.as('json')]).execute()
}

/**
 * A session of a page as one string of the API's JSON, which the statement wrote (src/db/sql.ts): one value to
 * decode a row instead of a score, and nothing to serialize again. With its place in list order, for the cursor.
 */
export interface SessionJsonRow {
  id: string
  last_seen_at: number
  json: string
}

/** A page of the list: `limit` rows from `offset`, or after the row whose sort key is `after` (a cursor's). */
export interface SessionPage {
  limit: number
  offset: number
  after?: SessionKey
}
/** A session's place in list order: lastSeenAt (ms), then id. */
export type SessionKey = readonly [lastSeenAt: number, id: string]
export const sessionKey = (row: Pick<SessionListRow, 'last_seen_at' | 'id'>): SessionKey => [row.last_seen_at, row.id]

/** The list's filters (API v1 search and the dashboard's); each narrows the list, all must hold. */
export interface SessionFilters {
  /** session_terms the visit has, every one (search.ts `term`: errors, recording, country, browser, OS, types, statuses, tags). */
  terms?: readonly string[]
  /** Identified as this user id (exact). */
  user?: string
  /** Hit this issue. */
  issue?: string
  /** A page of the visit contains this text (case-insensitive, 3+ characters). */
  url?: string
  /** Each of these texts occurs in the visit's searchable text (case-insensitive, 3+ characters each). */
  q?: readonly string[]
}

/**
 * Where a filtered query starts. `order` walks the lastSeenAt index and checks each visit against the filters —
 * right when many match, since the first page stops after a few rows. `filter` starts from `driver`, the filter
 * the fewest visits match (a term, the user, the issue; else the text filters), and probes the others per visit.
 */
export interface Plan {
  drive: 'order' | 'filter'
  driver?: Driver
  /** Text filters: from the trigram index's match set (`index`, the default), or read per visit (`probe`) when few visits are left to read. */
  text?: 'index' | 'probe'
}
/** A filter a count or a page can start from: its own index lists its visits. */
export type Driver = { term: string } | { user: string } | { issue: string } | { text: TextFilter }
interface TextFilter {
  name: 'url' | 'q'
  column: 'page' | 'body'
  needle: string
}

const defaultPlan = (f: SessionFilters): Plan => {
  if (f.issue !== undefined) return { drive: 'filter', driver: { issue: f.issue } }
  if (f.user !== undefined) return { drive: 'filter', driver: { user: f.user } }
  return { drive: f.url !== undefined || (f.q?.length ?? 0) > 0 ? 'filter' : 'order' }
}

/** Whether any filter but the range is set. */
export const isFiltered = (f: SessionFilters): boolean =>
  (f.terms?.length ?? 0) > 0 || f.user !== undefined || f.issue !== undefined || f.url !== undefined || (f.q?.length ?? 0) > 0

/**
 * A matching visit read and sorted costs about this many per-visit probes of the list-order walk (measured on
 * 1M visits: ~5 µs against ~1 µs). Walking the order reads limit × visits / matches entries, each probed once per
 * filter; starting from the filter reads every match: so the filter leads below sqrt(limit × visits × filters / 5).
 */
const READ_COST_IN_PROBES = 5

/**
 * A filtered page with its exact total. A single term is counted from term_days (no scan, whatever it matches);
 * several filters are counted from the one the fewest visits match, probing the others per visit; the count
 * then says where the page starts (Plan). A page past the last match is empty without reading it.
 */
export async function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters,
): Promise<{ total: number; rows: SessionListRow[] }>
export async function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters, json: RawBuilder<string>,
): Promise<{ total: number; rows: SessionJsonRow[] }>
export async function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters, json: RawBuilder<string> | undefined,
): Promise<{ total: number; rows: SessionListRow[] | SessionJsonRow[] }>
export async function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters, json?: RawBuilder<string>,
): Promise<{ total: number; rows: SessionListRow[] | SessionJsonRow[] }> {
  const { total, driver, text } = await countPlanned(db, projectId, range, filters)
  if (page.offset >= total) return { total, rows: [] }
  // Few matches: start from the driver (or the text index's matches); many: walk the list order. After a cursor the
  // walk starts at its key, so it reads as much as a first page: its offset (0) is the depth that counts.
  const probes = (filters.terms?.length ?? 0) + (filters.user === undefined ? 0 : 1) + (filters.issue === undefined ? 0 : 1) + textFilters(filters).length
  const visits = await countSessions(db, projectId, range)
  const fromFilter = total < Math.sqrt((page.limit + page.offset) * visits * probes / READ_COST_IN_PROBES) || (driver === undefined && text === 'index')
  const plan: Plan = fromFilter ? { drive: 'filter', ...(driver && { driver }), text } : { drive: 'order', text }
  return { total, rows: await listSessions(db, projectId, range, page, filters, plan, json) }
}

/** The exact number of live sessions in the range matching the filters. */
export async function countFiltered(db: Db, projectId: string, range: SessionRange, filters: SessionFilters): Promise<number> {
  return (await countPlanned(db, projectId, range, filters)).total
}

/** The count, the filter the fewest visits match (the plan's driver), and how text filters are read. */
async function countPlanned(
  db: Db, projectId: string, range: SessionRange, filters: SessionFilters,
): Promise<{ total: number; driver?: Driver; text: 'index' | 'probe' }> {
  const terms = filters.terms ?? []
  if (!isFiltered(filters)) return { total: await countSessions(db, projectId, range), text: 'index' }
  const [first] = terms
  if (first !== undefined && terms.length === 1 && !isFiltered({ ...filters, terms: [] })) {
    return { total: await countSessions(db, projectId, range, first), driver: { term: first }, text: 'index' }
  }
  // Each filter's own size: a term's is a sum of a few day counters, a user's and an issue's an index count.
  let driver: Driver | undefined
  let fewest = Infinity
  const consider = (d: Driver, n: number) => { if (n < fewest) [driver, fewest] = [d, n] }
  if (filters.user !== undefined) consider({ user: filters.user }, await countRows(db, driverRows(db, projectId, { user: filters.user })))
  if (filters.issue !== undefined) consider({ issue: filters.issue }, await countRows(db, driverRows(db, projectId, { issue: filters.issue })))
  for (const t of terms) consider({ term: t }, await countSessions(db, projectId, { cutoff: range.cutoff }, t))
  const text = await textPlan(db, projectId, range, filters, fewest)
  // A text filter the index answered with fewer rows than the other filters' visits leads.
  if (text.mode === 'index' && text.lead && text.rows < fewest) driver = { text: text.lead }
  return { total: await countMatching(db, projectId, range, filters, driver, text.mode), ...(driver && { driver }), text: text.mode }
}

/**
 * How the text filters are read: per visit when another filter or the range leaves at most SEARCH_TEXT_PROBE_MAX
 * visits to read; else from the trigram index, whose match set for each word must stay within
 * SEARCH_TEXT_MATCH_LIMIT rows — a broader word is refused (400 naming it) rather than counted for seconds.
 */
async function textPlan(
  db: Db, projectId: string, range: SessionRange, filters: SessionFilters, fewest: number,
): Promise<{ mode: 'index' | 'probe'; lead?: TextFilter; rows: number }> {
  const texts = textFilters(filters)
  if (texts.length === 0) return { mode: 'index', rows: Infinity }
  const ranged = range.from !== undefined || range.to !== undefined ? await countSessions(db, projectId, range) : Infinity
  if (Math.min(fewest, ranged) <= SEARCH_TEXT_PROBE_MAX) return { mode: 'probe', rows: Infinity }
  let lead: TextFilter | undefined
  let least = Infinity
  for (const t of texts) {
    const rows = await textMatchRows(db, projectId, t.column, t.needle, SEARCH_TEXT_MATCH_LIMIT)
    if (rows > SEARCH_TEXT_MATCH_LIMIT) {
      throw invalidParameter(t.name, `${t.name} "${t.needle}" occurs in more than ${SEARCH_TEXT_MATCH_LIMIT} texts of this project, too many to count `
        + `exactly at once: add words, or a filter or from/to range that leaves at most ${SEARCH_TEXT_PROBE_MAX} visits to search`)
    }
    if (rows < least) [lead, least] = [t, rows]
  }
  return { mode: 'index', ...(lead && { lead }), rows: least }
}

/**
 * Live sessions in a range matching several filters, exactly. Without a from/to range it reads the driver's
 * index and probes the other filters per visit, but reads no session row other than the few past retention:
 * the visits matching, less those matching that are past retention and not yet swept (from the lastSeenAt index).
 */
async function countMatching(
  db: Db, projectId: string, range: SessionRange, filters: SessionFilters, driver: Driver | undefined, text: 'index' | 'probe',
): Promise<number> {
  if (range.from !== undefined || range.to !== undefined) {
    // Over a range, the range's index leads (a day is ~1/30 of the visits) unless the driver is smaller.
    return countRows(db, liveSessions(db, projectId, range, filters, driver ? { drive: 'filter', driver, text } : { drive: 'order', text }))
  }
  const all = driver === undefined
    ? await countRows(db, matching(db, projectId, filters, { drive: 'filter', text }))
    : await countRows(db, probed(db, projectId, filters, driver, text))
  const expired = await countRows(db, matching(db, projectId, filters, { drive: 'order', text }).where('last_seen_at', '<', range.cutoff))
  return all - expired
}

/** count(*) of a query's rows (the planner does not compute the columns a count does not read). */
async function countRows(db: Db, q: Expression<unknown>): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from (${q}) as c`.execute(db)
  return Number(rows[0]?.n ?? 0)
}

/** The visits a driver lists, read from its own index, as a query over `d` with `d.session_id`. */
function driverRows(db: Db, projectId: string, driver: Driver) {
  if ('term' in driver) {
    return db.selectFrom('session_terms as d').select('d.session_id').where('d.project_id', '=', projectId).where('d.term', '=', driver.term)
  }
  if ('issue' in driver) {
    return db.selectFrom('issue_sessions as d').select('d.session_id').where('d.project_id', '=', projectId).where('d.issue_id', '=', driver.issue)
  }
  if ('text' in driver) {
    const { column, needle } = driver.text
    const matches = sql<{ session_id: string }>`(${textSessions(db, projectId, column, needle)})`
    return db.selectFrom((eb) => eb.selectFrom(matches.as('m')).select([sql.lit(projectId).as('project_id'), 'm.session_id'])
      .as('d')).select('d.session_id')
  }
  const user = driver.user
  return db.selectFrom((eb) => eb.selectFrom('sessions').select(['project_id', 'id as session_id']).where('project_id', '=', projectId)
    .where('user_id', '=', user).as('d')).select('d.session_id')
}

/** The visits the driver lists that match every other filter, probed per visit: no session row is read but for the user. */
function probed(db: Db, projectId: string, filters: SessionFilters, driver: Driver, text: 'index' | 'probe') {
  let q = driverRows(db, projectId, driver) as SelectQueryBuilder<Database & { d: { project_id: string; session_id: string } }, 'd', { session_id: string }>
  for (const t of filters.terms ?? []) {
    if ('term' in driver && t === driver.term) continue
    q = q.where((eb) => eb.exists(eb.selectFrom('session_terms as t').select('t.session_id').whereRef('t.project_id', '=', 'd.project_id')
      .where('t.term', '=', t).whereRef('t.session_id', '=', 'd.session_id')))
  }
  const user = filters.user
  if (user !== undefined && !('user' in driver)) {
    q = q.where('d.session_id', 'in', (eb) => eb.selectFrom('sessions').select('id').where('project_id', '=', projectId).where('user_id', '=', user))
  }
  const issue = filters.issue
  if (issue !== undefined && !('issue' in driver)) {
    q = q.where((eb) => eb.exists(eb.selectFrom('issue_sessions as l').select('l.session_id').whereRef('l.project_id', '=', 'd.project_id')
      .where('l.issue_id', '=', issue).whereRef('l.session_id', '=', 'd.session_id')))
  }
  for (const t of textFilters(filters)) {
    if ('text' in driver && t.column === driver.text.column && t.needle === driver.text.needle) continue
    // Past the driver's few visits, other words are checked per visit unless the plan reads them from the index.
    q = text === 'probe' || 'text' in driver ? q.where(textProbe(db, t.column, t.needle, 'd.project_id', 'd.session_id'))
      : q.where('d.session_id', 'in', textContains(db, projectId, t.column, t.needle))
  }
  return q
}

/** The text filters: `url` searches pages, each `q` word the body. */
const textFilters = (f: SessionFilters): TextFilter[] => [
  ...(f.url === undefined ? [] : [{ name: 'url' as const, column: 'page' as const, needle: f.url }]),
  ...(f.q ?? []).map((needle) => ({ name: 'q' as const, column: 'body' as const, needle })),
]

/** The project's sessions not past retention whose startedAt is in the range (one UTC day: by start_day). */
export function liveSessions(
  db: Db, projectId: string, range: SessionRange, filters: SessionFilters = {}, plan: Plan = { drive: 'order' }, after?: SessionKey,
) {
  const day = singleDay(range)
  const order = plan.drive === 'order' ? 'last_seen_at' : unindexed('last_seen_at')
  // After a cursor the walk starts at its key, on the index when the order drives, so a deep page costs a first page.
  // Over one UTC day the cutoff is then checked per row (`+`): with the key's range beside it, SQLite would take the
  // project's lastSeenAt index for its two ranges and filter the day's rows out of it.
  let q = matching(db, projectId, filters, plan).where(after && day !== null ? unindexed('last_seen_at') : order, '>=', range.cutoff)
  if (after) q = q.where(rowAfter([order, 'id'], after, 'desc'))
  if (day !== null) return q.where('start_day', '=', day)
  let ranged = q
  if (range.from !== undefined) ranged = ranged.where('started_at', '>=', range.from)
  if (range.to !== undefined) ranged = ranged.where('started_at', '<', range.to)
  return ranged
}

/**
 * The project's sessions matching the filters, any age. The plan's driver is the one filter an index serves
 * (a subquery to start from, or user_id's index); every other filter is probed per visit (EXISTS), and user_id is
 * spelled so no index serves it, so the planner keeps to the order or the driver. Text filters always start from
 * the trigram index: probing it once per visit would search it once per visit.
 */
function matching(db: Db, projectId: string, filters: SessionFilters, plan: Plan) {
  const driver = plan.drive === 'filter' ? plan.driver : undefined
  let q = db.selectFrom('sessions').select(sessionColumns).where('project_id', '=', projectId)
  const user = filters.user
  if (user !== undefined) q = q.where(driver && 'user' in driver ? 'user_id' : unindexedText('user_id'), '=', user)
  const issue = filters.issue
  if (issue !== undefined) {
    q = driver && 'issue' in driver
      ? q.where('id', 'in', (eb) => eb.selectFrom('issue_sessions').select('session_id').where('project_id', '=', projectId).where('issue_id', '=', issue))
      : q.where((eb) => eb.exists(eb.selectFrom('issue_sessions as l').select('l.session_id').whereRef('l.project_id', '=', 'sessions.project_id')
        .where('l.issue_id', '=', issue).whereRef('l.session_id', '=', 'sessions.id')))
  }
  for (const t of filters.terms ?? []) {
    q = driver && 'term' in driver && t === driver.term
      ? q.where('id', 'in', (eb) => eb.selectFrom('session_terms').select('session_id').where('project_id', '=', projectId).where('term', '=', t))
      : q.where((eb) => eb.exists(eb.selectFrom('session_terms as t').select('t.session_id').whereRef('t.project_id', '=', 'sessions.project_id')
        .where('t.term', '=', t).whereRef('t.session_id', '=', 'sessions.id')))
  }
  for (const t of textFilters(filters)) {
    const leads = driver && 'text' in driver && t.column === driver.text.column && t.needle === driver.text.needle
    q = plan.text === 'probe' || (driver && 'text' in driver && !leads) ? q.where(textProbe(db, t.column, t.needle, 'sessions.project_id', 'sessions.id'))
      : q.where('id', 'in', textContains(db, projectId, t.column, t.needle))
  }
  return q
}

/**
 * Exact number of live sessions in a range — or of those with `term` — without counting rows one by one:
 * whole days come from `session_days` (`term_days`), partial days at the edges are counted on the startedAt
 * index, and sessions past retention that the sweeper has not removed yet (few, by construction) are
 * subtracted through the lastSeenAt index. The parts are subqueries of one statement: one round trip on
 * PostgreSQL where they were two to four, each on the index it was written for (the plan test holds them).
 */
export async function countSessions(db: Db, projectId: string, range: SessionRange, term?: string): Promise<number> {
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
  const live = sql<number | string>`${sql.join(parts.map((part) => sql`coalesce(${part}, 0)`), sql` + `)} - ${expired}`
  return Number((await db.selectNoFrom(live.as('n')).executeTakeFirstOrThrow()).n)
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

function singleDay(range: SessionRange): number | null {
  const { from, to } = range
  return from !== undefined && to !== undefined && from % DAY_MS === 0 && to - from === DAY_MS ? from / DAY_MS : null
}

