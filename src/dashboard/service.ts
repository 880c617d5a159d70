import {
  COUNT_CAP, DASHBOARD_PAGE_SIZE, SIGN_IN_MAX_ADDRESSES, SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MS,
} from '../../common/limits.ts'
import type { Db } from '../db/database.ts'
import { retentionCutoff, type ProjectContext } from '../projects/service.ts'
import { parseRange } from '../sessions/service.ts'
import { countFiltered, countSessions, listSessions } from '../visits/read.ts'
import type { SessionDetailView } from '../sessions/schema.ts'
import { toDetailView } from '../sessions/views.ts'
import type { SessionsQuery } from './schema.ts'

export interface DashboardSessions {
  total: number
  /** True when the filtered count stopped at COUNT_CAP. */
  totalCapped: boolean
  limit: number
  offset: number
  sessions: SessionDetailView[]
}

/**
 * The sessions list of the dashboard: the read API's order and exact total when unfiltered; with
 * the errors or recording filter the total is counted up to COUNT_CAP.
 */
export async function dashboardSessions(
  db: Db, project: ProjectContext, query: SessionsQuery, now = Date.now(), cap = COUNT_CAP,
): Promise<DashboardSessions> {
  const range = { ...parseRange(query), cutoff: retentionCutoff(project, now) }
  const filters = { errors: query.errors === true, recording: query.recording === true }
  const page = { limit: query.limit ?? DASHBOARD_PAGE_SIZE, offset: query.offset ?? 0 }
  const filtered = filters.errors || filters.recording
  const [total, rows] = await Promise.all([
    filtered ? countFiltered(db, project.id, range, filters, cap + 1) : countSessions(db, project.id, range),
    listSessions(db, project.id, range, page, filters),
  ])
  return {
    total: filtered ? Math.min(total, cap) : total, totalCapped: filtered && total > cap,
    ...page, sessions: rows.map(toDetailView),
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
