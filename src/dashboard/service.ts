import {
  DASHBOARD_PAGE_SIZE, ISSUE_HISTOGRAM_DAYS, SIGN_IN_MAX_ADDRESSES, SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MS,
} from '../../common/limits.ts'
import type { Db } from '../db/database.ts'
import { retentionCutoff, type ProjectContext } from '../projects/service.ts'
import { filtersCanMatch, parseFilters, parseRange } from '../sessions/service.ts'
import { countSessions, findIssue, isFiltered, issueEventsPerDay, listSessions, searchSessions } from '../visits/read.ts'
import { notFound } from '../errors.ts'
import { DAY_MS, dayOf, toIso } from '../shared/time.ts'
import type { SessionDetailView } from '../sessions/schema.ts'
import { toDetailView } from '../sessions/views.ts'
import type { SessionsQuery } from './schema.ts'

export interface DashboardSessions {
  total: number
  limit: number
  offset: number
  sessions: SessionDetailView[]
}

/** The sessions list of the dashboard: the read API's order, filters and exact total. */
export async function dashboardSessions(db: Db, project: ProjectContext, query: SessionsQuery, now = Date.now()): Promise<DashboardSessions> {
  const range = { ...parseRange(query), cutoff: retentionCutoff(project, now) }
  const filters = parseFilters({ ...(query.errors === true && { errors: 'true' }), ...(query.recording === true && { recording: 'true' }),
    ...(query.issue !== undefined && { issue: query.issue }) })
  const page = { limit: query.limit ?? DASHBOARD_PAGE_SIZE, offset: query.offset ?? 0 }
  if (!filtersCanMatch(filters)) return { total: 0, ...page, sessions: [] }
  const { total, rows } = isFiltered(filters) ? await searchSessions(db, project.id, range, page, filters)
    : { total: await countSessions(db, project.id, range), rows: await listSessions(db, project.id, range, page) }
  return { total, ...page, sessions: rows.map(toDetailView) }
}

/** Events of an issue per UTC day over the last `days` days, oldest first, days without any included. */
export async function issueHistogram(
  db: Db, project: ProjectContext, issueId: string, now = Date.now(), days = ISSUE_HISTOGRAM_DAYS,
): Promise<{ days: { day: string; events: number }[] }> {
  const issue = await findIssue(db, project.id, issueId)
  if (!issue) throw notFound(`Issue "${issueId}" not found`)
  const last = dayOf(now)
  const counts = new Map((await issueEventsPerDay(db, project.id, issueId, (last - days + 1) * DAY_MS)).map((r) => [r.day, r.events]))
  return {
    days: Array.from({ length: days }, (_, i) => last - days + 1 + i)
      .map((day) => ({ day: toIso(day * DAY_MS).slice(0, 10), events: counts.get(day) ?? 0 })),
  }
}

/**
 * Failed sign-ins per client address: after `max` in `windowMs` the address waits. Bounded, so a
 * flood of addresses cannot grow memory without limit.
 */
export function makeSignInLimiter(max = SIGN_IN_MAX_FAILURES, windowMs = SIGN_IN_WINDOW_MS, maxAddresses = SIGN_IN_MAX_ADDRESSES) {
  const failures = new Map<string, { count: number; until: number }>()
  return {
    /** Seconds to wait, or 0 when the address may try. */
    retryAfter(ip: string, now: number): number {
      const entry = failures.get(ip)
      if (!entry || entry.until <= now) return 0
      return entry.count >= max ? Math.ceil((entry.until - now) / 1000) : 0
    },
    fail(ip: string, now: number): void {
      if (failures.size >= maxAddresses) {
        for (const [key, e] of failures) if (e.until <= now) failures.delete(key)
        if (failures.size >= maxAddresses) failures.clear()
      }
      const entry = failures.get(ip)
      if (!entry || entry.until <= now) failures.set(ip, { count: 1, until: now + windowMs })
      else entry.count++
    },
    succeed(ip: string): void {
      failures.delete(ip)
    },
  }
}
