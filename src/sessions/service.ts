import type { Db } from '../db/database.ts'
import { invalidParameter, notFound } from '../errors.ts'
import type { Counters } from '../events/types.ts'
import type { Project, ProjectContext } from '../projects/service.ts'
import { DAY_MS, parseDate, parseInstant, toIso } from '../shared/time.ts'
import { DEFAULT_LIMIT, type ListQuery } from './schema.ts'
import * as store from './store.ts'

export interface SessionView {
  id: string
  sessionKey: string
  startedAt: string
  lastSeenAt: string
  ip: string | null
  country: string | null
  userAgent: string | null
  utm: Record<string, string> | null
  events: Counters
}

export interface SessionDetailView extends SessionView {
  recording: { available: boolean; chunks: number }
}

export interface EventView {
  id: string
  type: string
  createdAt: string
  url?: string
  method?: string
  message: string | null
  stack: string | null
  statusCode: number | null
  durationMs: number | null
  reqBody: string | null
  resBody: string | null
}

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

const INSTANT_HELP = 'an ISO 8601 date-time with Z or an offset (2026-11-20T10:00:00Z) or a date (2026-11-20)'

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
export const retentionCutoff = (project: ProjectContext, now: number): number => now - project.retentionDays * DAY_MS

export async function listSessions(db: Db, project: ProjectContext, query: ListQuery, now = Date.now()): Promise<ListResult> {
  const range = { ...parseRange(query), cutoff: retentionCutoff(project, now) }
  // The schema fills both defaults; the fallbacks serve direct callers.
  const page = { limit: query.limit ?? DEFAULT_LIMIT, offset: query.offset ?? 0 }
  const [total, rows] = await Promise.all([
    store.countSessions(db, project.id, range),
    store.listSessions(db, project.id, range, page),
  ])
  return { project: publicProject(project), total, ...page, sessions: rows.map(toSessionView) }
}

export async function getSession(db: Db, project: ProjectContext, id: string, now = Date.now()): Promise<DetailResult> {
  const row = await store.findSession(db, project.id, id, retentionCutoff(project, now))
  // Unknown, expired and foreign sessions answer alike, so a key never learns another project's ids.
  if (!row) throw notFound(`Session "${id}" not found`)
  const events = await store.listEvents(db, project.id, id)
  return { project: publicProject(project), session: toDetailView(row), events: events.map(toEventView) }
}

export const publicProject = (p: Project): Project => ({ id: p.id, name: p.name, domain: p.domain })

export function toSessionView(row: store.SessionListRow): SessionView {
  return {
    id: row.id,
    sessionKey: row.session_key,
    startedAt: toIso(row.started_at),
    lastSeenAt: toIso(row.last_seen_at),
    ip: row.ip,
    country: row.country,
    userAgent: row.user_agent,
    utm: row.utm === null ? null : (JSON.parse(row.utm) as Record<string, string>),
    events: { total: row.events_total, errors: row.events_errors, slow: row.events_slow },
  }
}

export function toDetailView(row: store.SessionListRow): SessionDetailView {
  const chunks = row.recording_chunks
  return { ...toSessionView(row), recording: { available: chunks > 0, chunks } }
}

export function toEventView(row: store.EventRow): EventView {
  const view: EventView = {
    id: row.id,
    type: row.type,
    createdAt: toIso(row.created_at),
    message: row.message,
    stack: row.stack,
    statusCode: row.status_code,
    durationMs: row.duration_ms,
    reqBody: row.req_body,
    resBody: row.res_body,
  }
  if (row.url !== null) view.url = row.url
  if (row.method !== null) view.method = row.method
  return view
}
