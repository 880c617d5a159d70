import type { Selectable } from 'kysely'
import type { Db } from '../database.ts'
import { canMatch, rowAfter } from '../db/sql.ts'
import type { ReleaseDayTable, ReleaseTable } from './tables.ts'

export type ReleaseRow = Selectable<ReleaseTable>

/** Releases of one environment or all, active in [from, to): first seen before `to`, last seen at or after `from`. */
export interface ReleaseFilter {
  environment?: string
  from?: number
  to?: number
}

function releasesMatching(db: Db, projectId: string, filter: ReleaseFilter) {
  let q = db.selectFrom('releases').where('project_id', '=', projectId)
  if (filter.environment !== undefined) q = q.where('environment', '=', filter.environment)
  if (filter.from !== undefined) q = q.where('last_seen_at', '>=', filter.from)
  if (filter.to !== undefined) q = q.where('first_seen_at', '<', filter.to)
  return q
}

/** The list's order, all descending: newest first seen first, release and environment breaking ties. */
const ORDER = ['first_seen_at', 'release', 'environment'] as const
export const releaseKey = (row: ReleaseRow): (number | string)[] => [row.first_seen_at, row.release, row.environment]
export const RELEASE_KEY_SHAPE = ['integer', 'string', 'string'] as const

/** One page of releases, from `offset` or after a key. */
export function listReleases(
  db: Db, projectId: string, filter: ReleaseFilter, page: { limit: number; offset: number; after?: readonly (number | string)[] },
): Promise<ReleaseRow[]> {
  let q = releasesMatching(db, projectId, filter).selectAll()
  if (page.after) q = q.where(rowAfter(ORDER, page.after, 'desc'))
  for (const c of ORDER) q = q.orderBy(c, 'desc')
  return q.limit(page.limit).offset(page.offset).execute()
}

/** Exact number of releases (one per environment) matching the filter: a count of counter rows, one per release. */
export async function countReleases(db: Db, projectId: string, filter: ReleaseFilter): Promise<number> {
  const row = await releasesMatching(db, projectId, filter).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

/** A release's rows, one per environment (only `environment`'s when given), newest first. */
export function findRelease(db: Db, projectId: string, release: string, environment?: string): Promise<ReleaseRow[]> {
  if (!canMatch(release) || (environment !== undefined && !canMatch(environment))) return Promise.resolve([])
  return releasesMatching(db, projectId, environment === undefined ? {} : { environment }).selectAll().where('release', '=', release)
    .orderBy('first_seen_at', 'desc').orderBy('environment').execute()
}

/** A release's sessions per UTC day, oldest first. */
export function releaseDays(db: Db, projectId: string, release: string, environment: string): Promise<Selectable<ReleaseDayTable>[]> {
  return db.selectFrom('release_days').selectAll().where('project_id', '=', projectId).where('release', '=', release)
    .where('environment', '=', environment).orderBy('day').execute()
}
