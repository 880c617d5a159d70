import { ISSUE_VISITS, ISSUE_VISITS_WINDOW } from './limits.ts'
import type { Db } from '../database.ts'
import { notFound } from '../errors.ts'
import { publicProject, retentionCutoff, type Project, type ProjectContext } from '../projects/service.ts'
import { countThenPage, parseRange, type ListPage } from '../sessions/service.ts'
import { listScope, nextCursor, pageStart } from '../util/cursor.ts'
import type { EventView, SessionView } from '../contract/index.ts'
import type { SourceMapResolver } from '../sourcemaps/resolve.ts'
import { eventFrames, toEventView, toSessionView } from '../sessions/views.ts'
import { toIso } from '../util/time.ts'
import * as store from './read.ts'
import { setIssueStatus } from './store.ts'
import type { IssueStatus } from './tables.ts'
import type { IssueListQuery, IssueView } from './schema.ts'
import { assigneeFilter, peopleOf, personOf, type People } from './team.ts'

export interface IssueListResult extends ListPage {
  project: Project
  total: number
  issues: IssueView[]
}

export interface IssueDetailResult {
  project: Project
  issue: IssueView
  latestEvent: { sessionId: string; event: EventView } | null
  sessions: SessionView[]
}

/** Issues as the API shows them, with their assignees' emails. */
export async function issueViews(db: Db, rows: readonly store.IssueRow[]): Promise<IssueView[]> {
  const people = await peopleOf(db, rows.map((r) => r.assignee_id))
  return rows.map((r) => toIssueView(r, people))
}

function toIssueView(row: store.IssueRow, people: People): IssueView {
  return {
    id: row.id,
    type: row.type,
    title: row.title,
    culprit: row.culprit,
    firstSeenAt: toIso(row.first_seen_at),
    lastSeenAt: toIso(row.last_seen_at),
    events: row.events,
    sessions: row.sessions,
    status: row.status,
    groupingVersion: row.grouping_version,
    assignee: personOf(people, row.assignee_id),
  }
}

const ORDER = { lastSeen: 'last_seen', events: 'events', sessions: 'sessions' } as const satisfies Record<string, store.IssueOrder>

/** listIssues: most recent last seen first; `from`/`to` select by lastSeenAt; `me` is the signed-in person, if any. */
export async function listIssues(db: Db, project: ProjectContext, query: IssueListQuery, me: string | null = null): Promise<IssueListResult> {
  const assignee = query.assignee === undefined ? undefined : await assigneeFilter(db, query.assignee, me)
  // Nobody has that email or id: no issue is theirs, and the filter still matches none rather than all.
  const filter = {
    ...parseRange(query), ...(query.status !== undefined && { status: query.status }),
    ...(query.assignee !== undefined && { assignee: assignee === undefined ? '-' : assignee }),
  }
  const order = ORDER[query.sort ?? 'lastSeen']
  const scope = listScope('issues', project.id, [filter, order])
  const { position, page } = pageStart(scope, query, store.issueKeyShape(order))
  const [total, rows] = await countThenPage(page.offset,
    () => store.countIssues(db, project.id, filter),
    () => store.listIssues(db, project.id, filter, page, order))
  const next = nextCursor(scope, position, page.limit, total, rows, (row) => store.issueKey(row, order))
  return { project: publicProject(project), total, limit: page.limit, offset: position, next, issues: await issueViews(db, rows) }
}

/**
 * getIssue: the issue, its latest stored event and recent visits. Unknown ids and other projects'
 * issues answer the same 404.
 */
export async function getIssue(
  db: Db, sourceMaps: SourceMapResolver, project: ProjectContext, id: string, now = Date.now(),
): Promise<IssueDetailResult> {
  const row = await store.findIssue(db, project.id, id)
  if (!row) throw notFound(`Issue "${id}" not found`)
  const cutoff = retentionCutoff(project, now)
  const [latest, visits] = await Promise.all([
    store.latestIssueEvent(db, project.id, id, cutoff),
    store.issueVisits(db, project.id, id, cutoff, ISSUE_VISITS, ISSUE_VISITS_WINDOW),
  ])
  return {
    project: publicProject(project),
    issue: toIssueView(row, await peopleOf(db, [row.assignee_id])),
    latestEvent: latest ? { sessionId: latest.session_id, event: toEventView(latest, await eventFrames(sourceMaps, project.id, latest)) } : null,
    sessions: visits.map(toSessionView),
  }
}

/** What `issue resolve|ignore|reopen` and the dashboard's buttons set. */
export const STATUS_OF_ACTION = { resolve: 'resolved', ignore: 'ignored', reopen: 'open' } as const satisfies Record<string, IssueStatus>

/** Changes an issue's status; 404 for an issue the project does not have. Returns the issue as it is now. */
export async function changeStatus(
  db: Db, project: ProjectContext, id: string, status: IssueStatus, now = Date.now(),
): Promise<{ before: IssueStatus; issue: IssueView }> {
  const before = await setIssueStatus(db, project.id, id, status, now)
  const row = before === null ? undefined : await store.findIssue(db, project.id, id)
  if (before === null || !row) throw notFound(`Issue "${id}" not found in project ${project.id}`)
  return { before, issue: toIssueView(row, await peopleOf(db, [row.assignee_id])) }
}
