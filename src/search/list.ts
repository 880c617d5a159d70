/**
 * The session list's reads: a page in list order, its exact total, and the search filters (API v1 search,
 * the dashboard, an issue's visits). The rest of a visit's reads are in read.ts, which re-exports these.
 */
import { sql, type AliasableExpression, type SelectQueryBuilder } from 'kysely'
import type { Database, Db } from '../database.ts'
import { SEARCH_TEXT_MATCH_LIMIT } from './limits.ts'
import { asKey, collectIds, idRows, inIds, planCosts, rowAfter, textMatchSessions, textProbe, unindexed, unindexedText } from '../db/sql.ts'
import { DAY_MS } from '../util/time.ts'
import { sessionColumns, type SessionListRow } from '../visits/tables.ts'
import { countRows, countSessions, countWithTerms, expiredAmong } from './count.ts'
import { textFilters, tooBroad } from './texts.ts'
import type { SessionFilters, SessionKey, SessionPage, SessionRange } from './filters.ts'
import { plan, readsTextIndex, tooBroadText, type Driver, type PagePlan, type PlanCounts } from './plan.ts'

export * from './filters.ts'
export * from './plan.ts'

/**
 * One page of sessions, most recent activity first, id breaking ties so pages never overlap.
 * A range that is exactly one UTC day walks `sessions_day_last_seen_idx`, already in list order.
 * With filters, `plan` says where the page starts (searchSessions decides it from the exact count, plan.ts).
 */
export function listSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters = {}, plan: PagePlan = defaultPlan(filters),
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
  if (plan.drive !== 'order' || plan.sparse !== true) return q.execute()
  return byKeys(db, projectId, q).orderBy('k.key_seen', 'desc').orderBy('k.key_id', 'desc').execute()
}

/** The rows of a walk's page read last, by id (a sparse walk, plan.ts): the walk `q` takes only the keys, as `k.key_id`, `k.key_seen`. */
export function byKeys(db: Db, projectId: string, q: ReturnType<typeof liveSessions>) {
  const keys = q.clearSelect().select(['id as key_id', 'last_seen_at as key_seen'])
  return db.selectFrom(keys.as('k')).crossJoin('sessions').select(sessionColumns.map((c) => `sessions.${c}` as const))
    .where('sessions.project_id', '=', projectId).whereRef('sessions.id', '=', 'k.key_id')
}

/**
 * The plan of a page read without searchSessions' count: from the issue, the user or the ids; else along the list
 * order, with `url` and `q` read per visit (searchSessions reads them from the trigram index instead).
 */
const defaultPlan = (f: SessionFilters): PagePlan => {
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
 * A filtered page with its exact total: the counts read (countPlanned), the plan decided from them (plan.ts), and the
 * page read as it says. A single term is counted from term_days (no scan, whatever it matches); several filters from
 * the one the fewest visits match, probing the others per visit. The text filters are looked up in the trigram
 * index once, for the count and the page (resolveTexts).
 */
export async function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters,
): Promise<{ total: number; rows: SessionListRow[] }> {
  const counted = await countPlanned(db, projectId, range, filters)
  const { total, filters: resolved } = counted
  const visits = total > page.offset ? await countSessions(db, projectId, range) : 0
  const planned = plan({ ...counted, visits }, page, planCosts(db))
  switch (planned.drive) {
    case 'refuse': throw refusal(filters, planned.text)
    case 'none': return { total, rows: [] }
    case 'listed': {
      // The text filters' ids, when they were not the rarest, still hold: the visits in both lists.
      const { driver, sparse } = planned
      const ids = within(resolved.ids, (await collectIds(db, driverRows(db, projectId, driver))).ids)
      return { total, rows: await listSessions(db, projectId, range, page, { ...withoutDriver(resolved, driver), ids }, { drive: 'order', sparse }) }
    }
    case 'filter':
    case 'order': return { total, rows: await listSessions(db, projectId, range, page, resolved, planned) }
  }
}

/** The answer to a text filter too broad to count (plan.ts tooBroadText): 400 naming it. */
const refusal = (filters: SessionFilters, text: number) => {
  const t = textFilters(filters)[text]
  return t === undefined ? new Error(`no text filter ${String(text)}`) : tooBroad(t)
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
  const { total, texts } = await countPlanned(db, projectId, range, filters)
  const text = tooBroadText(texts)
  if (text !== undefined) throw refusal(filters, text)
  return total
}

/** The counts a plan is decided from (plan.ts PlanCounts but the range's visits), and the filters as the page reads them. */
type Counted = Omit<PlanCounts, 'visits'> & { filters: SessionFilters }

/**
 * The count; the filter the fewest visits match (the plan's driver) and how many that is; and the filters as the
 * page reads them, the text filters replaced by the ids they matched when the index was read (resolveTexts) — or, when
 * the count listed the matches that pass every other filter (countMatching), those ids alone, as driver and filters.
 * A text too broad to count leaves the rest uncounted.
 */
async function countPlanned(db: Db, projectId: string, range: SessionRange, filters: SessionFilters): Promise<Counted> {
  const terms = filters.terms ?? []
  const counted = (c: Omit<Counted, 'probes' | 'range'>): Counted => ({ ...c, probes: probesOf(c.filters), ...(isRanged(range) && { range: singleDay(range) === null ? 'span' : 'day' }) })
  if (!isFiltered(filters)) return counted({ total: await countSessions(db, projectId, range), size: Infinity, filters })
  const [first] = terms
  if (first !== undefined && terms.length === 1 && onlyTerms(filters)) {
    const total = await countSessions(db, projectId, range, first)
    // Over a from/to range, the page from the term reads every visit of the term (only the row knows the range).
    const size = !isRanged(range) ? total : await countSessions(db, projectId, { cutoff: range.cutoff }, first)
    return counted({ total, driver: { term: first }, size, filters })
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
  // Terms probed rarest first: a visit the rarest lacks is not probed for the others.
  const sorted = { ...filters, terms: [...terms].sort((a, b) => (sizes.get(a) ?? 0) - (sizes.get(b) ?? 0)) }
  const { filters: resolved, texts } = await resolveTexts(db, projectId, range, sorted, fewest)
  if (tooBroadText(texts) !== undefined) return counted({ texts, total: 0, size: 0, filters: resolved })
  if (resolved.ids !== undefined) {
    if (resolved.ids.length === 0) return counted({ total: 0, size: 0, filters: resolved })
    consider({ ids: resolved.ids }, resolved.ids.length)
  }
  const { total, passing } = await countMatching(db, projectId, range, resolved, driver)
  if (passing === undefined) return counted({ total, ...(driver && { driver }), size: fewest, filters: resolved })
  // The visits that passed every filter, listed by the count: the page reads them without probing any filter again.
  const narrowed = { ids: passing }
  return counted({ total, driver: narrowed, size: passing.length, filters: narrowed })
}

/** Filters each visit is checked against: terms, the user, the issue, a list of ids, and text filters read per visit. */
const probesOf = (f: SessionFilters): number => (f.terms?.length ?? 0) + (f.user === undefined ? 0 : 1) + (f.issue === undefined ? 0 : 1)
  + (f.ids === undefined ? 0 : 1) + textFilters(f).length

/**
 * The text filters as the ids of the visits they match, read once from the trigram index for the count and the page,
 * with how many each matched (at most SEARCH_TEXT_MATCH_LIMIT + 1: reading stops at the first too broad) — or left to
 * be read per visit where the plan says (readsTextIndex).
 */
async function resolveTexts(
  db: Db, projectId: string, range: SessionRange, filters: SessionFilters, fewest: number,
): Promise<{ filters: SessionFilters; texts?: number[] }> {
  const texts = textFilters(filters)
  if (texts.length === 0) return { filters }
  const inRange = isRanged(range) ? await countSessions(db, projectId, range) : Infinity
  if (!readsTextIndex(fewest, inRange)) return { filters }
  let ids = filters.ids
  const matched: number[] = []
  for (const t of texts) {
    const found = await textMatchSessions(db, projectId, t.column, t.needle, SEARCH_TEXT_MATCH_LIMIT)
    matched.push(found === null ? SEARCH_TEXT_MATCH_LIMIT + 1 : found.length)
    if (found === null) return { filters, texts: matched }
    ids = within(ids, found)
  }
  const { url: _url, q: _q, ...rest } = filters
  return { filters: { ...rest, ids: ids ?? [] }, texts: matched }
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
 * each by its id (a row costs several probes: the dialect's planCosts). CROSS JOIN keeps that order on SQLite, whose
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
  db: Db, projectId: string, range: SessionRange, filters: SessionFilters = {}, plan: PagePlan = { drive: 'order' }, after?: SessionKey,
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
function matching(db: Db, projectId: string, filters: SessionFilters, plan: PagePlan) {
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

