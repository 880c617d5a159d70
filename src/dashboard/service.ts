import {
  DASHBOARD_PAGE_SIZE, ISSUE_HISTOGRAM_DAYS, MAX_HEADLINE_LENGTH, SIGN_IN_MAX_ADDRESSES, SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MS,
} from '../../common/limits.ts'
import type { Db } from '../db/database.ts'
import type { ProjectContext } from '../projects/service.ts'
import { listSessionRows } from '../sessions/service.ts'
import { findIssue, issueEventsPerDay, visitHeadlines } from '../visits/read.ts'
import { notFound } from '../errors.ts'
import { DAY_MS, dayOf, toIso } from '../shared/time.ts'
import { toDetailView } from '../sessions/views.ts'
import type { DashboardSessionList, Headline, SessionsQuery } from './schema.ts'

/**
 * The sessions list of the dashboard: the read API's parameters, order and exact total, each row with its
 * recording and the first error and report that say what broke.
 */
export async function dashboardSessions(db: Db, project: ProjectContext, query: SessionsQuery, now = Date.now()): Promise<DashboardSessionList> {
  const { total, page, rows } = await listSessionRows(db, project, { limit: DASHBOARD_PAGE_SIZE, ...query }, now)
  const headlines = await visitHeadlines(db, project.id, rows.map((r) => ({ id: r.id, errors: r.events_errors })))
  const firsts = new Map<string, { firstError: Headline | null; firstReport: Headline | null }>()
  for (const e of headlines) {
    const entry = firsts.get(e.session_id) ?? { firstError: null, firstReport: null }
    const headline: Headline = {
      type: e.type, message: clip(e.message), url: clip(e.url), method: e.method, statusCode: e.status_code,
    }
    if (e.type === 'USER_REPORT') entry.firstReport = headline
    else entry.firstError = headline
    firsts.set(e.session_id, entry)
  }
  return {
    total, ...page,
    sessions: rows.map((r) => ({ ...toDetailView(r), ...(firsts.get(r.id) ?? { firstError: null, firstReport: null }) })),
  }
}

const clip = (text: string | null): string | null =>
  (text === null || text.length <= MAX_HEADLINE_LENGTH ? text : `${text.slice(0, MAX_HEADLINE_LENGTH - 1)}…`)

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
