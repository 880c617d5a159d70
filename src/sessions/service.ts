import type { Readable } from 'node:stream'
import type { Db } from '../database.ts'
import { canMatch } from '../db/sql.ts'
import type { SourceMapResolver } from '../sourcemaps/resolve.ts'
import { invalidParameter } from '../errors.ts'
import { publicProject, retentionCutoff, type Project, type ProjectContext } from '../projects/service.ts'
import { listScope, nextCursor, pageStart } from '../util/cursor.ts'
import { DAY_MS, INSTANT_HELP, parseDate, parseInstant } from '../util/time.ts'
import { MAX_SEARCH_WORDS } from './limits.ts'
import { MIN_SEARCH_LENGTH } from '../../common/limits.ts'
import type { VitalName, VitalRating } from '../../common/vitals.ts'
import { browserFamily, osFamily } from '../visits/index.ts'
import { type SessionFilters, term } from '../search/index.ts'
import type { ListQuery } from './schema.ts'
import * as search from '../search/index.ts'
import * as visits from '../visits/index.ts'
import { streamSession, wholeSession } from './stream.ts'
import type { SessionView } from '../contract/index.ts'
import { toDetailView, toSessionView } from './views.ts'

export interface ListResult extends ListPage {
  project: Project
  total: number
  sessions: SessionView[]
}

/** Where a page of a list is: `offset` its first row's position (also after a cursor), `next` the cursor after it. */
export interface ListPage {
  limit: number
  offset: number
  next: string | null
}

/**
 * Turns the date/from/to parameters into a startedAt range. Every given value is checked, even
 * one that `date` overrides: a malformed parameter is a mistake the caller wants to hear about.
 */
export function parseRange(query: Pick<ListQuery, 'date' | 'from' | 'to'>): { from?: number; to?: number } {
  const instant = (name: 'from' | 'to', raw: string | undefined): number | undefined => {
    if (raw === undefined) return undefined
    const ms = parseInstant(raw)
    if (ms === null) throw invalidParameter(name, `${name} must be ${INSTANT_HELP} (got ${JSON.stringify(raw)})`)
    return ms
  }
  const from = instant('from', query.from)
  const to = instant('to', query.to)
  if (query.date !== undefined) {
    const day = parseDate(query.date)
    if (day === null) {
      throw invalidParameter('date', `date must be a calendar date YYYY-MM-DD (got ${JSON.stringify(query.date)})`)
    }
    return { from: day, to: day + DAY_MS }
  }
  if (from !== undefined && to !== undefined && from > to) {
    throw invalidParameter('from', `from (${query.from ?? ''}) must not be later than to (${query.to ?? ''})`)
  }
  return { from, to }
}

export async function listSessions(db: Db, project: ProjectContext, query: ListQuery, now = Date.now()): Promise<ListResult> {
  const { total, page, rows } = await listSessionRows(db, project, query, now)
  return { project: publicProject(project), total, ...page, sessions: rows.map(toSessionView) }
}

/** The list's rows and exact total for a query of the list (the read API's and the dashboard's, the same parameters). */
export async function listSessionRows(
  db: Db, project: ProjectContext, query: ListQuery, now = Date.now(),
): Promise<{ total: number; page: ListPage; rows: visits.SessionListRow[] }> {
  const parsed = parseRange(query)
  const range = { ...parsed, cutoff: retentionCutoff(project, now) }
  const filters = parseFilters(query)
  const scope = listScope('sessions', project.id, [parsed, filters])
  const { position, page } = pageStart(scope, query, ['integer', 'string'] as const)
  const answer = (total: number, rows: visits.SessionListRow[]) => ({
    total, rows, page: { limit: page.limit, offset: position, next: nextCursor(scope, position, page.limit, total, rows, search.sessionKey) },
  })
  // No stored value holds U+0000 (PostgreSQL text cannot): such a filter matches nothing.
  if (!filtersCanMatch(filters)) return answer(0, [])
  if (!search.isFiltered(filters)) {
    // The day counters count every visit: the count costs no scan, so it runs beside the page.
    const [total, rows] = await countThenPage(page.offset, () => search.countSessions(db, project.id, range),
      () => search.listSessions(db, project.id, range, page))
    return answer(total, rows)
  }
  const { total, rows } = await search.searchSessions(db, project.id, range, page, filters)
  return answer(total, rows)
}

/** The search parameters as store filters: values in their stored spelling (terms: search.ts), `q` split into words and "phrases". */
export function parseFilters(query: Partial<ListQuery>): SessionFilters {
  const terms: string[] = []
  if (query.errors !== undefined) terms.push(term.errors)
  if (query.recording !== undefined) terms.push(term.recording)
  if (query.country !== undefined) terms.push(term.country(query.country.toUpperCase()))
  if (query.browser !== undefined) terms.push(term.browser(browserFamily(query.browser)))
  if (query.os !== undefined) terms.push(term.os(osFamily(query.os)))
  if (query.type !== undefined) terms.push(term.type(query.type))
  if (query.status !== undefined) terms.push(term.status(query.status.toLowerCase()))
  for (const vital of new Set(query.vital)) {
    const [name, rating] = vital.split(':') as [VitalName, VitalRating]
    terms.push(term.vital(name, rating))
  }
  for (const [name, value] of Object.entries(query)) {
    if (name.startsWith('tag.') && typeof value === 'string') terms.push(term.tag(name.slice(4), value))
  }
  return {
    ...(terms.length > 0 && { terms }),
    ...(query.issue !== undefined && { issue: query.issue }),
    ...(query.user !== undefined && { user: query.user }),
    ...(query.url !== undefined && { url: query.url }),
    ...(query.q !== undefined && { q: searchWords(query.q) }),
  }
}

/** `q` as words and "quoted phrases", each at least MIN_SEARCH_LENGTH characters, at most MAX_SEARCH_WORDS. */
function searchWords(q: string): string[] {
  const words = [...q.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => (m[1] ?? m[2] ?? '').trim()).filter((w) => w !== '')
  const short = words.find((w) => w.length < MIN_SEARCH_LENGTH)
  if (short !== undefined || words.length === 0) {
    throw invalidParameter('q', `q words and "phrases" must be at least ${MIN_SEARCH_LENGTH} characters each (got ${JSON.stringify(short ?? q)})`)
  }
  if (words.length > MAX_SEARCH_WORDS) throw invalidParameter('q', `q may hold at most ${MAX_SEARCH_WORDS} words or "phrases" (got ${words.length})`)
  return words
}

export const filtersCanMatch = (f: SessionFilters): boolean =>
  [f.issue, f.user, f.url, ...(f.q ?? []), ...(f.terms ?? [])].every((v) => v === undefined || canMatch(v))

/**
 * The total and one page of rows. A page past the last match is empty without reading it: both
 * engines walk every row an OFFSET skips, so `offset` near MAX_OFFSET would scan the whole project
 * to find nothing. The first page (offset 0, as is a page after a cursor) needs its rows whatever the total,
 * so it reads both at once.
 */
export async function countThenPage<R>(offset: number, count: () => Promise<number>, rows: () => Promise<R[]>): Promise<[number, R[]]> {
  if (offset === 0) return Promise.all([count(), rows()])
  const total = await count()
  return [total, offset >= total ? [] : await rows()]
}

/** Sessions with more events than this are streamed page by page instead of built whole. */
export const STREAM_ABOVE = 2000

/**
 * One session with all its events as the answer's JSON: written whole when small, streamed when large, the same
 * bytes either way (the route's response schema's, stream.ts). Unknown, expired and foreign sessions answer alike, so
 * a key never learns another project's ids.
 */
export async function getSession(
  db: Db, sourceMaps: SourceMapResolver, project: ProjectContext, id: string, opts: { now?: number; streamAbove?: number } = {},
): Promise<Buffer | Readable> {
  const row = await visits.liveSession(db, project, id, opts.now ?? Date.now())
  const session = toDetailView(row)
  const write = row.events_total > (opts.streamAbove ?? STREAM_ABOVE) ? streamSession : wholeSession
  return write(db, sourceMaps, project.id, publicProject(project), session)
}
