import type { Readable } from 'node:stream'
import { canMatch, type Db } from '../db/database.ts'
import type { SourceMapResolver } from '../sourcemaps/resolve.ts'
import { invalidParameter } from '../errors.ts'
import { publicProject, retentionCutoff, type Project, type ProjectContext } from '../projects/service.ts'
import { DAY_MS, INSTANT_HELP, parseDate, parseInstant } from '../shared/time.ts'
import { DEFAULT_LIMIT } from '../../common/limits.ts'
import type { ListQuery } from './schema.ts'
import * as store from '../visits/read.ts'
import { streamSession } from './stream.ts'
import type { EventView, SessionDetailView, SessionView } from './schema.ts'
import { toDetailView, toEventViews, toSessionView } from './views.ts'

export interface ListResult {
  project: Project
  total: number
  limit: number
  offset: number
  sessions: SessionView[]
}

export interface DetailResult {
  project: Project
  session: SessionDetailView
  events: EventView[]
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

/** The instant before which a project's sessions are past retention. */

export async function listSessions(db: Db, project: ProjectContext, query: ListQuery, now = Date.now()): Promise<ListResult> {
  const range = { ...parseRange(query), cutoff: retentionCutoff(project, now) }
  // The schema fills both defaults; the fallbacks serve direct callers.
  const page = { limit: query.limit ?? DEFAULT_LIMIT, offset: query.offset ?? 0 }
  const filters = query.issue === undefined ? {} : { issue: query.issue }
  // No stored id holds U+0000 (PostgreSQL text cannot): such an issue matches nothing.
  if (filters.issue !== undefined && !canMatch(filters.issue)) return { project: publicProject(project), total: 0, ...page, sessions: [] }
  const [total, rows] = await countThenPage(page.offset,
    // The day counters count every visit; an issue's visits are counted through its links.
    () => (filters.issue === undefined ? store.countSessions(db, project.id, range) : store.countFiltered(db, project.id, range, filters)),
    () => store.listSessions(db, project.id, range, page, filters))
  return { project: publicProject(project), total, ...page, sessions: rows.map(toSessionView) }
}

/**
 * The total and one page of rows. A page past the last match is empty without reading it: both
 * engines walk every row an OFFSET skips, so `offset` near MAX_OFFSET would scan the whole project
 * to find nothing. The first page needs its rows whatever the total, so it reads both at once.
 */
export async function countThenPage<R>(offset: number, count: () => Promise<number>, rows: () => Promise<R[]>): Promise<[number, R[]]> {
  if (offset === 0) return Promise.all([count(), rows()])
  const total = await count()
  return [total, offset >= total ? [] : await rows()]
}

/** Sessions with more events than this are streamed page by page instead of built whole. */
export const STREAM_ABOVE = 2000

/**
 * One session with all its events: built whole when small, streamed when large, the same bytes
 * either way. Unknown, expired and foreign sessions answer alike, so a key never learns another
 * project's ids.
 */
export async function getSession(
  db: Db, sourceMaps: SourceMapResolver, project: ProjectContext, id: string, opts: { now?: number; streamAbove?: number } = {},
): Promise<DetailResult | Readable> {
  const row = await store.liveSession(db, project, id, opts.now ?? Date.now())
  const session = toDetailView(row)
  if (row.events_total > (opts.streamAbove ?? STREAM_ABOVE)) {
    return streamSession(db, sourceMaps, project.id, publicProject(project), session)
  }
  const events = await store.listEvents(db, project.id, id)
  return { project: publicProject(project), session, events: await toEventViews(sourceMaps, project.id, events) }
}
