import type { Db } from '../database.ts'
import { invalidParameter, notFound } from '../errors.ts'
import { releaseIssueCounts, releaseIssues } from '../issues/index.ts'
import { issueViews } from '../issues/service.ts'
import { publicProject, type ProjectContext } from '../projects/service.ts'
import { countThenPage, parseRange } from '../sessions/service.ts'
import { listScope, nextCursor, pageStart } from '../util/cursor.ts'
import { DAY_MS, toIso } from '../util/time.ts'
import * as store from './read.ts'
import { RELEASE_ISSUES, type ReleaseDetailQuery, type ReleaseDetailView, type ReleaseListQuery, type ReleaseListView, type ReleaseView } from './schema.ts'

/** A fraction, or null when there is nothing to divide by. */
const rate = (good: number, all: number): number | null => (all > 0 ? good / all : null)

function toReleaseView(row: store.ReleaseRow, newIssues: number): ReleaseView {
  return {
    release: row.release,
    environment: row.environment === '' ? null : row.environment,
    sessions: row.sessions,
    crashed: row.crashed,
    errored: row.errored,
    crashFreeRate: rate(row.sessions - row.crashed, row.sessions),
    users: row.users,
    crashFreeUsers: rate(row.users - row.crashed_users, row.users),
    firstSeenAt: toIso(row.first_seen_at),
    lastSeenAt: toIso(row.last_seen_at),
    newIssues,
  }
}

const issueKey = (row: store.ReleaseRow): string => `${row.release}\u0000${row.environment}`

/** listReleases: newest (most recently first seen) first; counters read as they are, new issues counted per page. */
export async function listReleases(db: Db, project: ProjectContext, query: ReleaseListQuery): Promise<ReleaseListView> {
  const filter = { ...parseRange(query), ...(query.environment !== undefined && { environment: query.environment }) }
  const scope = listScope('releases', project.id, [filter])
  const { position, page } = pageStart(scope, query, store.RELEASE_KEY_SHAPE)
  const [total, rows] = await countThenPage(page.offset,
    () => store.countReleases(db, project.id, filter),
    () => store.listReleases(db, project.id, filter, page))
  const issues = await releaseIssueCounts(db, project.id, rows.map((r) => r.release))
  const next = nextCursor(scope, position, page.limit, total, rows, store.releaseKey)
  return {
    project: publicProject(project), total, limit: page.limit, offset: position, next,
    releases: rows.map((r) => toReleaseView(r, issues.get(issueKey(r)) ?? 0)),
  }
}

/**
 * getRelease: one release's row, its sessions per day and the issues it opened. A release in several environments
 * needs `environment=`; an unknown one (or environment) answers 404.
 */
export async function getRelease(db: Db, project: ProjectContext, release: string, query: ReleaseDetailQuery): Promise<ReleaseDetailView> {
  const rows = await store.findRelease(db, project.id, release, query.environment)
  const [row, other] = rows
  if (!row) throw notFound(`Release "${release}"${query.environment === undefined ? '' : ` in environment "${query.environment}"`} not found`)
  if (other) {
    throw invalidParameter('environment', `Release "${release}" has sessions in several environments: name one with environment= (`
      + `${rows.map((r) => JSON.stringify(r.environment)).join(', ')})`)
  }
  const [issues, days] = await Promise.all([
    releaseIssues(db, project.id, row.release, row.environment, RELEASE_ISSUES),
    store.releaseDays(db, project.id, row.release, row.environment),
  ])
  return {
    project: publicProject(project),
    ...toReleaseView(row, issues.length < RELEASE_ISSUES ? issues.length
      : (await releaseIssueCounts(db, project.id, [row.release])).get(issueKey(row)) ?? 0),
    days: days.map((d) => ({ day: toIso(d.day * DAY_MS).slice(0, 10), sessions: d.sessions, crashed: d.crashed, errored: d.errored })),
    issues: await issueViews(db, issues),
  }
}
