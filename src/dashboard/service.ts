import { DASHBOARD_PAGE_SIZE } from '../../common/limits.ts'
import { ISSUE_HISTOGRAM_DAYS, MAX_HEADLINE_LENGTH, SIGN_IN_FIRST_DELAY_MS, SIGN_IN_FREE_FAILURES, SIGN_IN_MAX_ADDRESSES, SIGN_IN_MAX_DELAY_MS, SIGN_IN_WINDOW_MS } from './limits.ts'
import type { Db } from '../database.ts'
import type { ProjectContext } from '../projects/service.ts'
import { listSessionRows } from '../sessions/service.ts'
import { findIssue, issueEventsPerDay } from '../issues/index.ts'
import { recordingUsage, visitHeadlines } from '../visits/index.ts'
import { notFound } from '../errors.ts'
import { DAY_MS, dayOf, toIso } from '../util/time.ts'
import { toDetailView } from '../sessions/views.ts'
import type { DashboardSessionList, Headline, ProjectUsage, SessionsQuery } from './schema.ts'
import { quotaUsage } from '../limits/quota.ts'

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

/** The project's daily event quota and the events it counted today (UTC), and its recording usage, for its settings page. */
export async function projectUsage(db: Db, project: ProjectContext, now = Date.now()): Promise<ProjectUsage> {
  const recordings = await recordingUsage(db, project.id)
  return {
    day: toIso(now).slice(0, 10), events: await quotaUsage(db, project.id, now), dailyEventQuota: project.dailyEventQuota,
    recordingBytes: recordings.bytes, recordingBudget: project.recordingBudget,
    evictedVisits: recordings.evictedVisits, evictedBytes: recordings.evictedBytes,
  }
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
 * Sign-in attempts per client address (or other key), counted when an attempt starts, before its password is
 * checked, so concurrent guesses cannot all slip in under the limit. The first SIGN_IN_FREE_FAILURES go ahead
 * at once; after that each attempt must wait a delay that doubles from SIGN_IN_FIRST_DELAY_MS up to
 * SIGN_IN_MAX_DELAY_MS since the previous one. A right password forgets the key's count; a key without an
 * attempt for SIGN_IN_WINDOW_MS is forgotten. Delays rather than a lock-out: someone guessing from the admin's
 * address holds the admin up by at most SIGN_IN_MAX_DELAY_MS, and other addresses not at all. Bounded, so a
 * flood of addresses cannot grow memory without limit (the least recently tried go first).
 */
export function makeSignInLimiter({
  free = SIGN_IN_FREE_FAILURES, firstDelayMs = SIGN_IN_FIRST_DELAY_MS, maxDelayMs = SIGN_IN_MAX_DELAY_MS,
  windowMs = SIGN_IN_WINDOW_MS, maxAddresses = SIGN_IN_MAX_ADDRESSES,
} = {}) {
  const entries = new Map<string, { attempts: number; nextAt: number; lastAt: number }>()
  return {
    /**
     * Counts an attempt for `key` and answers 0 when it may go ahead, or, without counting it, the seconds
     * it must wait. Synchronous: nothing else runs between the check and the count.
     */
    attempt(key: string, now: number): number {
      let entry = entries.get(key)
      if (entry && now - entry.lastAt >= windowMs) entry = undefined
      if (entry && entry.nextAt > now) return Math.ceil((entry.nextAt - now) / 1000)
      const attempts = (entry?.attempts ?? 0) + 1
      const over = attempts - free
      const nextAt = over < 0 ? now : now + Math.min(maxDelayMs, firstDelayMs * 2 ** Math.min(over, 30))
      entries.delete(key) // re-inserted last: the map's order is least recently tried first
      for (const k of entries.keys()) {
        if (entries.size < maxAddresses) break
        entries.delete(k)
      }
      entries.set(key, { attempts, nextAt, lastAt: now })
      return 0
    },
    /** The password was right: the key starts afresh. */
    succeed(key: string): void {
      entries.delete(key)
    },
  }
}
