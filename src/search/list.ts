/**
 * The session list's reads: a page in list order, its exact total, and the search filters (API v1 search,
 * the dashboard, an issue's visits). The rest of a visit's reads are in read.ts, which re-exports these.
 */
import { sql, type AliasableExpression, type SelectQueryBuilder } from 'kysely'
import type { Database, Db } from '../db/database.ts'
import { SEARCH_TEXT_MATCH_LIMIT, SEARCH_TEXT_PROBE_MAX } from '../../common/limits.ts'
import { asKey, collectIds, idRows, inIds, listedIdCosts, rowAfter, rowReadInProbes, textMatchSessions, textProbe, unindexed, unindexedText } from '../db/sql.ts'
import { DAY_MS } from '../util/time.ts'
import { sessionColumns, type SessionListRow } from '../visits/tables.ts'
import { countRows, countSessions, countWithTerms, expiredAmong } from './count.ts'
import { textFilters, tooBroad } from './texts.ts'
import type { SessionFilters, SessionKey, SessionPage, SessionRange } from './filters.ts'

export * from './filters.ts'

/**
 * One page of sessions, most recent activity first, id breaking ties so pages never overlap.
 * A range that is exactly one UTC day walks `sessions_day_last_seen_idx`, already in list order.
 * With filters, `plan` says where the planner starts (searchByPlan decides it from the exact count).
 */
export function listSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters = {}, plan: Plan = defaultPlan(filters),
): Promise<SessionListRow[]> {
  // From a driver, the visits it lists that pass every other filter are read and sorted (fromDriver); else the walk
  // of the lastSeenAt index stops after the page.
  const driver = plan.drive === 'filter' ? plan.driver : undefined
  if (driver !== undefined) {
    // `+last_seen_at`: no planner may walk the lastSeenAt index for the order and look each visit up in the driver's.
    const q = fromDriver(db, projectId, range, filters, driver, page.after)
      .orderBy(unindexed('sessions.last_seen_at'), 'desc').orderBy('sessions.id', 'desc').limit(page.limit).offset(page.offset)
    return q.execute()
  }
  const q = liveSessions(db, projectId, range, filters, plan, page.after)
    .orderBy(plan.drive === 'order' ? 'last_seen_at' : unindexed('last_seen_at'), 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset)
  if (plan.sparse !== true) return q.execute()
  return byKeys(db, projectId, q).orderBy('k.key_seen', 'desc').orderBy('k.key_id', 'desc').execute()
}

/** The rows of a walk's page read last, by id (Plan.sparse): the walk `q` takes only the keys, as `k.key_id`, `k.key_seen`. */
export function byKeys(db: Db, projectId: string, q: ReturnType<typeof liveSessions>) {
  const keys = q.clearSelect().select(['id as key_id', 'last_seen_at as key_seen'])
  return db.selectFrom(keys.as('k')).crossJoin('sessions').select(sessionColumns.map((c) => `sessions.${c}` as const))
    .where('sessions.project_id', '=', projectId).whereRef('sessions.id', '=', 'k.key_id')
}

/**
 * Where a filtered query starts. `order` walks the lastSeenAt index and checks each visit against the filters —
 * right when many match, since the first page stops after a few rows. `filter` starts from `driver`, the filter
 * the fewest visits match (a term, the user, the issue, the text filters' matches), probes the others on its
 * visits' ids, and reads the rows of those that pass. Text filters left in the filters are read per visit.
 */
export interface Plan {
  drive: 'order' | 'filter'
  driver?: Driver
  /**
   * Along the list order (of the project or of one UTC day): few of the visits walked match, SPARSE_WALK or more walked
   * for each row of the page. The walk then takes only their keys, which PostgreSQL reads from the index alone where it read
   * each visit's row before probing it (type='s page, 5,000 visits among 1M: 180–196 → 79–84 ms), and the page's rows
   * are read last, by id. Not for a walk that passes few more visits than it lists: that join costs more than the rows
   * it spares (errors=true: +1 ms). Nor along a from/to range, whose index (startedAt) holds no lastSeenAt to sort by.
   */
  sparse?: boolean
}
/** Visits a walk passes for each row of its page from which it reads keys first (Plan.sparse). */
export const SPARSE_WALK = 8
/** A filter a count or a page can start from: its own index lists its visits (`ids`: the text filters' matches). */
export type Driver = { term: string } | { user: string } | { issue: string } | { ids: readonly string[] }

/**
 * The plan of a page read without searchByPlan's count: from the issue, the user or the ids; else along the list
 * order, with `url` and `q` read per visit (searchByPlan reads them from the trigram index instead).
 */
const defaultPlan = (f: SessionFilters): Plan => {
  if (f.issue !== undefined) return { drive: 'filter', driver: { issue: f.issue } }
  if (f.user !== undefined) return { drive: 'filter', driver: { user: f.user } }
  if (f.ids !== undefined) return { drive: 'filter', driver: { ids: f.ids } }
  return { drive: 'order' }
}

/** Whether a from/to range is set (`date=` is one). */
const isRanged = (range: SessionRange): boolean => range.from !== undefined || range.to !== undefined

/** Whether every filter set is a term (none at all included). */
const onlyTerms = (f: SessionFilters): boolean => !isFiltered({ ...f, terms: [] })

/** Whether any filter but the range is set. */
export const isFiltered = (f: SessionFilters): boolean => (f.terms?.length ?? 0) > 0 || f.user !== undefined || f.issue !== undefined
  || f.url !== undefined || (f.q?.length ?? 0) > 0 || f.ids !== undefined

/**
 * The general plan of a filtered page with its exact total (read.ts searchSessions calls it, or answers a search by
 * text alone in one statement instead, text-alone.ts). A single term is counted from term_days (no scan, whatever it matches);
 * several filters are counted from the one the fewest visits match, probing the others per visit; the count
 * then says where the page starts (Plan); along the order, the driver's visits may be listed once and probed in that
 * list (listedIdCosts). A page past the last match is empty without reading it. The text filters are looked up in
 * the trigram index once, for the count and the page (resolveTexts).
 */
export async function searchByPlan(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters,
): Promise<{ total: number; rows: SessionListRow[] }> {
  const { total, driver, size, filters: resolved } = await countPlanned(db, projectId, range, filters)
  if (page.offset >= total) return { total, rows: [] }
  // (text-alone.ts writes this plan in SQL for a search by text alone, whose one driver is the matches.)
  // Few matches: start from the driver, probe the other filters on its visits and read the rows of those that pass;
  // many: walk the list order (limit × visits / matches index entries, each probed once per filter, or in a list of
  // the driver's visits, below). After a cursor the walk starts at its key, so it reads as much as a first page: its
  // offset (0) is the depth that counts.
  const probes = (resolved.terms?.length ?? 0) + (resolved.user === undefined ? 0 : 1) + (resolved.issue === undefined ? 0 : 1)
    + (resolved.ids === undefined ? 0 : 1) + textFilters(resolved).length
  const visits = await countSessions(db, projectId, range)
  const entries = Math.min(visits, (page.limit + page.offset) * visits / Math.max(total, 1))
  const walked = entries * probes
  // From the driver, the rows read are those that pass the probes — with a from/to range, which only the row can
  // tell, up to every one of the driver's: counted so.
  const ranged = isRanged(range)
  const fromDriverCost = size * (probes - 1) + (ranged ? size : total) * rowReadInProbes(db)
  // Or the walk probes a list of the driver's visits, made once (listedIdCosts: PostgreSQL), instead of its index,
  // and the other filters only on the entries that pass it: type='s page (5,000 visits of 1M) 71 → 17 ms.
  const listing = driver === undefined || 'ids' in driver ? null : listedIdCosts(db)
  const listedCost = listing && size <= listing.mostVisits
    ? size * listing.perVisit + entries * (listing.perEntry + (probes - 1) * Math.min(1, size / Math.max(visits, 1))) : Infinity
  // Without a driver (text words left to be read per visit, as a range leaves at most SEARCH_TEXT_PROBE_MAX visits),
  // a from/to range's own index leads: a walk of the list order would read every newer visit first. One UTC day has
  // its own list order (sessions_day_last_seen_idx), whose walk stops after the page.
  const fromRange = ranged && singleDay(range) === null && isFiltered(resolved)
  const order: Plan = { drive: 'order', sparse: visits >= SPARSE_WALK * total }
  if (driver === undefined) return { total, rows: await listSessions(db, projectId, range, page, resolved, fromRange ? { drive: 'filter' } : order) }
  if (listedCost < Math.min(fromDriverCost, walked)) {
    // The text filters' ids, when they were not the rarest, still hold: the visits in both lists.
    const ids = within(resolved.ids, (await collectIds(db, driverRows(db, projectId, driver))).ids)
    return { total, rows: await listSessions(db, projectId, range, page, { ...withoutDriver(resolved, driver), ids }, order) }
  }
  return { total, rows: await listSessions(db, projectId, range, page, resolved, fromDriverCost < walked ? { drive: 'filter', driver } : order) }
}

/** The filters but the driver's own, which the ids it listed stand for. */
function withoutDriver(filters: SessionFilters, driver: Driver): SessionFilters {
  if ('term' in driver) return { ...filters, terms: (filters.terms ?? []).filter((t) => t !== driver.term) }
  const rest = { ...filters }
  if ('issue' in driver) delete rest.issue
  if ('user' in driver) delete rest.user
  return rest
}

/** The ids of `found` that are also in `ids`; all of them when `ids` is not set. */
const within = (ids: readonly string[] | undefined, found: string[]): string[] => {
  if (ids === undefined) return found
  const kept = new Set(ids)
  return found.filter((id) => kept.has(id))
}

/** The exact number of live sessions in the range matching the filters. */
export async function countFiltered(db: Db, projectId: string, range: SessionRange, filters: SessionFilters): Promise<number> {
  return (await countPlanned(db, projectId, range, filters)).total
}

/**
 * The count; the filter the fewest visits match (the plan's driver) and how many that is; and the filters as the
 * page reads them, the text filters replaced by the ids they matched when the index was read (resolveTexts) — or, when
 * the count listed the matches that pass every other filter (countMatching), those ids alone, as driver and filters.
 */
async function countPlanned(
  db: Db, projectId: string, range: SessionRange, filters: SessionFilters,
): Promise<{ total: number; driver?: Driver; size: number; filters: SessionFilters }> {
  const terms = filters.terms ?? []
  if (!isFiltered(filters)) return { total: await countSessions(db, projectId, range), size: Infinity, filters }
  const [first] = terms
  if (first !== undefined && terms.length === 1 && onlyTerms(filters)) {
    const total = await countSessions(db, projectId, range, first)
    // Over a from/to range, the page from the term reads every visit of the term (only the row knows the range).
    const size = !isRanged(range) ? total : await countSessions(db, projectId, { cutoff: range.cutoff }, first)
    return { total, driver: { term: first }, size, filters }
  }
  // Each filter's own size: a term's is a sum of a few day counters, a user's and an issue's an index count.
  let driver: Driver | undefined
  let fewest = Infinity
  const consider = (d: Driver, n: number) => { if (n < fewest) [driver, fewest] = [d, n] }
  if (filters.user !== undefined) consider({ user: filters.user }, await countRows(db, driverRows(db, projectId, { user: filters.user })))
  if (filters.issue !== undefined) consider({ issue: filters.issue }, await countRows(db, driverRows(db, projectId, { issue: filters.issue })))
  const sizes = new Map<string, number>()
  for (const t of terms) {
    sizes.set(t, await countSessions(db, projectId, { cutoff: range.cutoff }, t))
    consider({ term: t }, sizes.get(t) ?? 0)
  }
  // Terms probed rarest first: a visit the rarest lacks is not probed for the others (a walk for type=&errors=true
  // probing has-errors first, which 65 % of visits pass, took 48 ms against 15, measured on 1M visits).
  const sorted = { ...filters, terms: [...terms].sort((a, b) => (sizes.get(a) ?? 0) - (sizes.get(b) ?? 0)) }
  const resolved = await resolveTexts(db, projectId, range, sorted, fewest)
  if (resolved.ids !== undefined) {
    if (resolved.ids.length === 0) return { total: 0, size: 0, filters: resolved }
    consider({ ids: resolved.ids }, resolved.ids.length)
  }
  const { total, passing } = await countMatching(db, projectId, range, resolved, driver)
  if (passing === undefined) return { total, ...(driver && { driver }), size: fewest, filters: resolved }
  // The visits that passed every filter, listed by the count: the page reads them without probing any filter again.
  const narrowed = { ids: passing }
  return { total, driver: narrowed, size: passing.length, filters: narrowed }
}

/**
 * The text filters as the ids of the visits they match, read once from the trigram index for the count and the page
 * (each word's match set must stay within SEARCH_TEXT_MATCH_LIMIT rows of text: a broader word is refused, 400 naming
 * it, rather than counted for seconds) — or left to be read per visit when another filter or the range leaves at
 * most SEARCH_TEXT_PROBE_MAX visits to read.
 */
async function resolveTexts(
  db: Db, projectId: string, range: SessionRange, filters: SessionFilters, fewest: number,
): Promise<SessionFilters> {
  const texts = textFilters(filters)
  if (texts.length === 0) return filters
  const ranged = isRanged(range) ? await countSessions(db, projectId, range) : Infinity
  if (Math.min(fewest, ranged) <= SEARCH_TEXT_PROBE_MAX) return filters
  let ids = filters.ids
  for (const t of texts) {
    const found = await textMatchSessions(db, projectId, t.column, t.needle, SEARCH_TEXT_MATCH_LIMIT)
    if (found === null) throw tooBroad(t)
    ids = within(ids, found)
  }
  const { url: _url, q: _q, ...rest } = filters
  return { ...rest, ids: ids ?? [] }
}

/**
 * Live sessions in a range matching several filters, exactly. Without a from/to range it counts the visits matching —
 * terms alone from their bitmaps (countWithTerms), else by reading the driver's index and probing the other filters
 * per visit — less those matching that are past retention and not yet swept (from the lastSeenAt index): no session
 * row is read but those few. From the text filters' matches with other filters, the count also lists the visits that
 * passed (`passing`, any age), for the page to read without probing them again: `q=…&country=` probed its 5,000
 * matches once for the count and once for the page, 14 ms each of its 56 on SQLite (1M visits).
 */
async function countMatching(
  db: Db, projectId: string, range: SessionRange, filters: SessionFilters, driver: Driver | undefined,
): Promise<{ total: number; passing?: string[] }> {
  if (isRanged(range)) {
    // Over a range, the range's index leads (a day is ~1/30 of the visits) unless the driver is smaller.
    return { total: await countRows(db, liveSessions(db, projectId, range, filters, driver ? { drive: 'filter', driver } : { drive: 'order' })) }
  }
  const terms = filters.terms ?? []
  const beyondIds = isFiltered({ ...filters, ids: undefined })
  const driverIds = driver !== undefined && 'ids' in driver ? driver.ids : undefined
  const listed = driver !== undefined && driverIds !== undefined && beyondIds ? await collectIds(db, probed(db, projectId, filters, driver)) : undefined
  // The visits matching, as ids, when known: those listed, or the ids when nothing else filters (each once).
  const ids = listed?.ids ?? (beyondIds ? undefined : driverIds)
  const all = listed !== undefined ? listed.rows
    : ids !== undefined ? ids.length
    : terms.length > 1 && onlyTerms(filters) ? await countWithTerms(db, projectId, terms)
    : driver === undefined ? await countRows(db, matching(db, projectId, filters, { drive: 'filter' }))
    : await countRows(db, probed(db, projectId, filters, driver))
  // Of a list of ids, those past retention are looked up among the project's few (expiredAmong); else probed.
  const expired = (ids === undefined ? null : await expiredAmong(db, projectId, range.cutoff, ids))
    ?? await countRows(db, matching(db, projectId, ids ? { ids } : filters, { drive: 'order' }).where('last_seen_at', '<', range.cutoff))
  return { total: all - expired, ...(listed && { passing: listed.ids }) }
}

/** The visits a driver lists, read from its own index, as a query over `d` with `d.session_id`. */
function driverRows(db: Db, projectId: string, driver: Driver) {
  if ('term' in driver) {
    return db.selectFrom('session_terms as d').select('d.session_id').where('d.project_id', '=', projectId).where('d.term', '=', driver.term)
  }
  if ('issue' in driver) {
    return db.selectFrom('issue_sessions as d').select('d.session_id').where('d.project_id', '=', projectId).where('d.issue_id', '=', driver.issue)
  }
  if ('ids' in driver) {
    // The project as a bound key, not a literal: the statement's text stays the same for every project.
    const listed = sql<{ session_id: string }>`(${idRows(db, driver.ids)})`
    return db.selectFrom((eb) => eb.selectFrom(listed.as('m')).select([asKey(db, projectId).as('project_id'), 'm.session_id'])
      .as('d')).select('d.session_id')
  }
  const user = driver.user
  return db.selectFrom((eb) => eb.selectFrom('sessions').select(['project_id', 'id as session_id']).where('project_id', '=', projectId)
    .where('user_id', '=', user).as('d')).select('d.session_id')
}

/**
 * The visits the driver lists that match every other filter, probed on their ids: no session row is read but for
 * the user's. Text filters still in the filters are read per visit (the plan left them to the driver's few visits).
 */
function probed(db: Db, projectId: string, filters: SessionFilters, driver: Driver) {
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
  if (filters.ids !== undefined && !('ids' in driver)) q = q.where(inIds(db, 'd.session_id', filters.ids))
  for (const t of textFilters(filters)) q = q.where(textProbe(db, t.column, t.needle, 'd.project_id', 'd.session_id'))
  return q
}

/**
 * The live sessions in the range that the driver lists and that match every other filter, after `after` in list
 * order: the driver's visits are probed on their ids first (probed), and only the rows of those that pass are read,
 * each by its id (a row costs several probes: rowReadInProbes). CROSS JOIN keeps that order on SQLite, whose
 * planner otherwise walked the whole lastSeenAt index as a covering index for a query that selected ids first (340 ms
 * for 5,000 matches of 1M, measured for an earlier shape of this query).
 */
function fromDriver(db: Db, projectId: string, range: SessionRange, filters: SessionFilters, driver: Driver, after?: SessionKey) {
  return fromVisits(db, projectId, range, probed(db, projectId, filters, driver), after)
}

/** The live sessions in the range among the visits `visits` lists (`session_id`), after `after`, each row read by its id. */
export function fromVisits(db: Db, projectId: string, range: SessionRange, visits: AliasableExpression<{ session_id: string }>, after?: SessionKey) {
  let q = db.selectFrom(visits.as('c')).crossJoin('sessions')
    .select(sessionColumns.map((c) => `sessions.${c}` as const))
    .where('sessions.project_id', '=', projectId).whereRef('sessions.id', '=', 'c.session_id')
    .where(unindexed('sessions.last_seen_at'), '>=', range.cutoff)
  if (after) q = q.where(rowAfter([unindexed('sessions.last_seen_at'), 'sessions.id'], after, 'desc'))
  if (range.from !== undefined) q = q.where('sessions.started_at', '>=', range.from)
  if (range.to !== undefined) q = q.where('sessions.started_at', '<', range.to)
  return q
}

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
 * spelled so no index serves it, so the planner keeps to the order or the driver.
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
  // A set of ids (SessionFilters.ids: the text filters' matches, those that passed the other filters, or a rare
  // filter's visits listed) the statement builds once (an ephemeral index on SQLite, a hash on PostgreSQL) and probes
  // per row; text filters not resolved to ids are read per visit.
  if (filters.ids !== undefined) q = q.where(inIds(db, 'id', filters.ids))
  for (const t of textFilters(filters)) q = q.where(textProbe(db, t.column, t.needle, 'sessions.project_id', 'sessions.id'))
  return q
}

function singleDay(range: SessionRange): number | null {
  const { from, to } = range
  return from !== undefined && to !== undefined && from % DAY_MS === 0 && to - from === DAY_MS ? from / DAY_MS : null
}

