/*
 * The issues of a visit's events: the steps of writeBatches that keep issues, their fingerprints,
 * the issue–visit links, the day counts and the per-status totals exact (delete.ts forgetVisits undoes them), and
 * setIssueStatus, the one operation that changes an issue's status. Features reach the issue tables
 * only through writeBatches, deleteExpired, eraseVisits, setIssueStatus and the reads.
 *
 * The counting rule: an issue counts the stored events grouped into it and the distinct stored
 * visits that hold them. A retried batch adds nothing (only inserted events count); a visit that
 * retention or erasure deletes takes its events out of the counts. An issue whose visits are all
 * gone stays, with its status, first and last seen, and zero counts: a resolved bug that recurs
 * after its visits expired is a regression, and an ignored one stays ignored.
 */
import type { Kysely } from 'kysely'
import { emailsOf } from '../accounts/store.ts'
import { enqueueIssueAlert } from '../alerts/store.ts'
import type { Database, Db } from '../database.ts'
import type { Upsert } from '../db/counters.ts'
import { canMatch, takesArrays } from '../db/sql.ts'
import { inTransaction } from '../db/transaction.ts'
import { runReused } from '../db/reuse.ts'
import { deleteProjectRows } from '../db/rows.ts'
import type { EventRecord } from '../contract/index.ts'
import { createHash } from 'node:crypto'
import { dayOf } from '../util/time.ts'
import type { IssueStatus, IssueTable } from './tables.ts'
import { countAsArrays, countEach, ISSUE_DAYS, type IssueCounts } from './counts.ts'
import { addTotal, byKey, IssueTotals } from './totals.ts'

/** What grouping decided for one event (src/issues/fingerprint.ts makes it). */
export interface EventGroup {
  version: number
  fingerprint: string
  title: string
  culprit: string | null
}

/** A change worth telling people about: a new issue, or a resolved one that occurred again. */
export interface IssueChange {
  kind: 'new' | 'regression'
  /** The issue's first event (new), or the event that reopened it (regression). */
  at: number
  issue: Pick<IssueTable, 'project_id' | 'id' | 'type' | 'title' | 'culprit' | 'first_seen_at' | 'last_seen_at' | 'events' | 'sessions' | 'assignee_id'>
}

/** The issue a fingerprint leads to, as the batch found or made it. */
export interface IssueTarget {
  issueId: string
  created: boolean
  status: IssueStatus
  resolvedAt: number | null
}

/**
 * Finds the issue of every fingerprint in the batch, creating the ones never seen. The fingerprint
 * row is claimed first: whoever inserts it creates the issue, and a concurrent batch that lost the
 * race (PostgreSQL waits for the winner's commit) reads the winner's issue. Returns, per event, the
 * issue id its row is stored with (null for events that are not grouped), and the targets.
 *
 * `known` holds what earlier batches of the same group commit found, so a popular issue is looked up
 * once per group rather than once per batch; the issues a batch creates are added to it and listed in
 * `created`, for the caller to take out again if the batch's savepoint is rolled back. `origin` is the batch's release
 * and environment, kept on the issues it creates.
 */
export async function issueTargets(
  trx: Db, projectId: string, events: readonly EventRecord[], groups: readonly (EventGroup | null)[], now: number,
  known: { cache: Map<string, IssueTarget>; created: string[] } = { cache: new Map(), created: [] },
  origin: { release: string | null; environment: string | null } = { release: null, environment: null },
): Promise<{ issueIds: (string | null)[]; targets: Map<string, IssueTarget> }> {
  const targets = new Map<string, IssueTarget>()
  const wanted = new Map<string, { group: EventGroup; type: string; first: number; last: number }>()
  events.forEach((e, i) => {
    const group = groups[i]
    if (!group) return
    const seen = wanted.get(group.fingerprint)
    if (seen) {
      seen.first = Math.min(seen.first, e.createdAt)
      seen.last = Math.max(seen.last, e.createdAt)
    } else {
      wanted.set(group.fingerprint, { group, type: e.type, first: e.createdAt, last: e.createdAt })
    }
  })
  if (wanted.size === 0) return { issueIds: events.map(() => null), targets }
  const cacheKey = (fingerprint: string) => targetKey(projectId, fingerprint)
  const unknown: string[] = []
  for (const fingerprint of wanted.keys()) {
    const cached = known.cache.get(cacheKey(fingerprint))
    // Created by an earlier batch of the group: an existing issue for this one.
    if (cached) targets.set(fingerprint, { ...cached, created: false })
    else unknown.push(fingerprint)
  }
  if (unknown.length > 0) await findTargets(trx, projectId, unknown, targets)
  for (const fingerprint of unknown) {
    const found = targets.get(fingerprint)
    if (found) known.cache.set(cacheKey(fingerprint), found)
  }
  // Claimed in fingerprint order: two writers creating the same new issues take their rows in one order.
  for (const [fingerprint, w] of byKey(wanted)) {
    if (targets.has(fingerprint)) continue
    const issueId = issueIdOf(fingerprint)
    const claimed = await trx.insertInto('issue_fingerprints')
      .values({ project_id: projectId, fingerprint, grouping_version: w.group.version, issue_id: issueId })
      .onConflict((oc) => oc.columns(['project_id', 'fingerprint']).doNothing()).executeTakeFirst()
    if (Number(claimed.numInsertedOrUpdatedRows ?? 0) === 0) {
      await findTargets(trx, projectId, [fingerprint], targets)
      continue
    }
    await trx.insertInto('issues').values({
      project_id: projectId, id: issueId, grouping_version: w.group.version, type: w.type, title: w.group.title,
      culprit: w.group.culprit, first_seen_at: w.first, last_seen_at: w.last, events: 0, sessions: 0, status: 'open',
      resolved_at: null, created_at: now,
      // The release its first event came from (a release's new issues); '' for no environment, as release health keys it.
      release: origin.release, environment: origin.release === null ? null : origin.environment ?? '',
    }).execute()
    const created: IssueTarget = { issueId, created: true, status: 'open', resolvedAt: null }
    targets.set(fingerprint, created)
    known.cache.set(cacheKey(fingerprint), created)
    known.created.push(cacheKey(fingerprint))
  }
  return { issueIds: groups.map((g) => (g ? targets.get(g.fingerprint)?.issueId ?? null : null)), targets }
}

/** A fingerprint's key in issueTargets' cache (`known`), which spans a group's projects. */
const targetKey = (projectId: string, fingerprint: string): string => `${projectId}\u0000${fingerprint}`

/**
 * An issue's id, from the fingerprint that created it: the same events grouped in another database
 * (an import) give the same ids, so an export → import round trip is lossless. 72 bits: ids are
 * unique within a project (the key) by a wide margin.
 */
const issueIdOf = (fingerprint: string): string => createHash('sha256').update(fingerprint).digest('base64url').slice(0, 12)

/**
 * Looks up the issues of every fingerprint in a group's batches at once, into `known` (issueTargets' cache): one
 * statement a project, where each batch whose events bring a fingerprint the group has not met would take one.
 */
export async function knownIssues(trx: Db, jobs: readonly { projectId: string; groups: readonly (EventGroup | null)[] }[], known: Map<string, IssueTarget>): Promise<void> {
  const byProject = new Map<string, Set<string>>()
  for (const { projectId, groups } of jobs) {
    for (const g of groups) if (g) byProject.set(projectId, (byProject.get(projectId) ?? new Set()).add(g.fingerprint))
  }
  for (const [projectId, fingerprints] of byKey(byProject)) {
    const found = new Map<string, IssueTarget>()
    await findTargets(trx, projectId, [...fingerprints].sort(), found)
    for (const [fingerprint, target] of found) known.set(targetKey(projectId, fingerprint), target)
  }
}

async function findTargets(trx: Db, projectId: string, fingerprints: string[], into: Map<string, IssueTarget>): Promise<void> {
  const { rows } = await runReused(trx, `find issues ${fingerprints.length}`, [projectId, ...fingerprints], () => trx
    .selectFrom('issue_fingerprints as f')
    .innerJoin('issues as i', (j) => j.onRef('i.project_id', '=', 'f.project_id').onRef('i.id', '=', 'f.issue_id'))
    .select(['f.fingerprint', 'i.id', 'i.status', 'i.resolved_at'])
    .where('f.project_id', '=', projectId).where('f.fingerprint', 'in', fingerprints))
  for (const r of rows) into.set(r.fingerprint, { issueId: r.id, created: false, status: r.status, resolvedAt: r.resolved_at })
}

interface IssueCount extends IssueCounts {
  /** The events per UTC day. */
  days: Map<number, number>
  target: IssueTarget | undefined
  /** The job of the group that first stored events in it: its result carries the issue's change. */
  job: number
}

/**
 * What the batches of one group commit add to their issues, applied once before the commit, like the
 * day counters: one change per issue the group touched (counts.ts) and one upsert of its issue–visit links, however
 * many batches hit the same issue. On PostgreSQL a popular issue's row is locked once per group commit
 * rather than once per batch. A batch that fails alone (its savepoint rolled back) is never merged in.
 */
export class IssueDeltas {
  private readonly issues = new Map<string, IssueCount>()
  private readonly links = new Map<string, { projectId: string; issueId: string; sessionId: string }>()
  private readonly created = new Map<string, { projectId: string; issueId: string }>()

  /** Counts the events a batch stored (with the issue ids they were stored with) into their issues and its visit. */
  add(
    projectId: string, sessionId: string, stored: readonly { id: string; issueId: string | null; createdAt: number }[],
    targets: ReadonlyMap<string, IssueTarget>, job: number,
  ): void {
    const targetOf = new Map([...targets.values()].map((t) => [t.issueId, t]))
    for (const t of targets.values()) if (t.created) this.created.set(`${projectId}\u0000${t.issueId}`, { projectId, issueId: t.issueId })
    for (const s of stored) {
      if (s.issueId === null) continue
      const key = `${projectId}\u0000${s.issueId}`
      const day = dayOf(s.createdAt)
      const c = this.issues.get(key)
      if (c) {
        c.events++
        c.first = Math.min(c.first, s.createdAt)
        if (s.createdAt >= c.last) c.latest = { sessionId, eventId: s.id }
        c.last = Math.max(c.last, s.createdAt)
        c.days.set(day, (c.days.get(day) ?? 0) + 1)
      } else {
        this.issues.set(key, {
          projectId, events: 1, first: s.createdAt, last: s.createdAt, latest: { sessionId, eventId: s.id }, days: new Map([[day, 1]]),
          target: targetOf.get(s.issueId), job,
        })
      }
      const linkKey = `${key}\u0000${sessionId}`
      if (!this.links.has(linkKey)) this.links.set(linkKey, { projectId, issueId: s.issueId, sessionId })
    }
  }

  mergeInto(other: IssueDeltas): void {
    for (const [k, c] of this.issues) {
      const o = other.issues.get(k)
      if (!o) {
        other.issues.set(k, { ...c, days: new Map(c.days) })
        continue
      }
      o.events += c.events
      o.first = Math.min(o.first, c.first)
      // Merged in job order: of equal times, the later batch's event is the later one.
      if (c.last >= o.last) o.latest = c.latest
      o.last = Math.max(o.last, c.last)
      for (const [day, n] of c.days) o.days.set(day, (o.days.get(day) ?? 0) + n)
      // The earliest knowledge of the issue decides whether it was created or resolved before this group.
      if (o.target === undefined) o.target = c.target
    }
    for (const [k, l] of this.links) if (!other.links.has(k)) other.links.set(k, l)
    for (const [k, c] of this.created) other.created.set(k, c)
  }

  /**
   * Applies the group's counts, with `newVisits` from link() (which visits are new to each issue), and their day
   * counts: the issues in key order, so concurrent group commits on PostgreSQL lock them in the same order and cannot
   * deadlock on them. Reopens a resolved issue when an event happened after it was resolved (a late
   * retry of an older event does not), queues the alerts of new and reopened issues in the same
   * transaction (src/alerts), and removes an issue created in the group whose every event turned out
   * already stored (a retry grouped differently). Returns the changes with the job each belongs to.
   */
  async apply(trx: Db, newVisits: ReadonlyMap<string, number>): Promise<{ job: number; change: IssueChange }[]> {
    const changes: { job: number; change: IssueChange }[] = []
    const totals = new IssueTotals()
    const counts = byKey(this.issues).map(([key, c]) => ({ key, issueId: key.slice(key.indexOf('\u0000') + 1), c, added: newVisits.get(key) ?? 0 }))
    const days: Upsert = {
      ...ISSUE_DAYS, rows: counts.flatMap(({ issueId, c }) => [...c.days].sort(([a], [b]) => a - b).map(([day, events]) => [c.projectId, issueId, day, events])),
    }
    const counted = await (takesArrays(trx) ? countAsArrays(trx, counts, days) : countEach(trx, counts, days))
    for (const { key, issueId, c } of counts) {
      const issue = counted.get(key)
      if (!issue) throw new Error(`issue ${issueId} of project ${c.projectId} is gone`)
      if (this.created.has(key)) {
        changes.push({ job: c.job, change: { kind: 'new', at: issue.first_seen_at, issue } })
        totals.add(c.projectId, 'open', 1)
        if (issue.release !== null) totals.addRelease(c.projectId, issue.release, issue.environment ?? '', 1)
      }
      if (c.target?.status === 'resolved' && (c.target.resolvedAt ?? Infinity) < c.last) {
        // Conditional, so of two groups that both saw it resolved only one reopens it.
        const reopened = await trx.updateTable('issues').set({ status: 'open', resolved_at: null })
          .where('project_id', '=', c.projectId).where('id', '=', issueId)
          .where('status', '=', 'resolved').where('resolved_at', '<', c.last).executeTakeFirst()
        if (Number(reopened.numUpdatedRows) > 0) {
          totals.add(c.projectId, 'resolved', -1)
          totals.add(c.projectId, 'open', 1)
          changes.push({ job: c.job, change: { kind: 'regression', at: c.last, issue } })
        }
      }
    }
    await totals.apply(trx)
    // In the group's transaction: an alert is queued exactly when the change it tells of commits.
    for (const { change: { kind, at, issue: i } } of changes) {
      const assignee = i.assignee_id === null ? undefined : (await emailsOf(trx, [i.assignee_id])).get(i.assignee_id)
      await enqueueIssueAlert(trx, {
        projectId: i.project_id, kind, at, assignee: i.assignee_id === null || assignee === undefined ? null : { id: i.assignee_id, email: assignee },
        issue: {
          id: i.id, type: i.type, title: i.title, culprit: i.culprit, firstSeenAt: i.first_seen_at, lastSeenAt: i.last_seen_at,
          events: i.events, sessions: i.sessions,
        },
      })
    }
    // Created in the group and counted in no total yet: an issue whose every event turned out stored already goes.
    for (const [key, { projectId, issueId }] of this.created) {
      if (this.issues.has(key)) continue
      await trx.deleteFrom('issue_fingerprints').where('project_id', '=', projectId).where('issue_id', '=', issueId).execute()
      await trx.deleteFrom('issues').where('project_id', '=', projectId).where('id', '=', issueId).execute()
    }
    return changes
  }

  /**
   * Inserts the group's issue–visit links not stored yet; returns, per issue key, how many of its visits are new to it
   * (the links the insert returns, since it skips the ones already stored), for apply. Rows no other group writes: a
   * writer stores them before it takes the hot rows (a day's counters, an issue's) rather than while holding them,
   * when every statement makes the concurrent groups that need those rows wait.
   */
  async link(trx: Db): Promise<Map<string, number>> {
    const newVisits = new Map<string, number>()
    const links = [...this.links.values()].map((l) => ({ project_id: l.projectId, issue_id: l.issueId, session_id: l.sessionId }))
    for (let i = 0; i < links.length; i += LINK_CHUNK) {
      const chunk = links.slice(i, i + LINK_CHUNK)
      const params = chunk.flatMap((l) => [l.project_id, l.issue_id, l.session_id])
      const { rows } = await runReused(trx, `add issue links ${chunk.length}`, params, () => trx.insertInto('issue_sessions').values(chunk)
        .onConflict((oc) => oc.columns(['project_id', 'issue_id', 'session_id']).doNothing())
        .returning(['project_id', 'issue_id']))
      for (const r of rows) {
        const key = `${r.project_id}\u0000${r.issue_id}`
        newVisits.set(key, (newVisits.get(key) ?? 0) + 1)
      }
    }
    return newVisits
  }
}

/** Links per statement: 3 parameters each, well under both engines' limits. */
const LINK_CHUNK = 500

/**
 * Sets an issue's status (resolve, ignore, reopen) and moves the per-status totals in the same
 * transaction. Resolving records when, so only an event after it reopens the issue. Returns the
 * status it had, or null when the project has no such issue.
 */
export async function setIssueStatus(
  db: Db, projectId: string, issueId: string, status: IssueStatus, now: number,
): Promise<IssueStatus | null> {
  if (!canMatch(issueId)) return null
  return inTransaction(db, async (trx) => {
    for (;;) {
      const row = await trx.selectFrom('issues').select('status').where('project_id', '=', projectId).where('id', '=', issueId)
        .executeTakeFirst()
      if (!row) return null
      // Conditional on the status read, so the totals move by what really changed even when two
      // people change the same issue at once (the loser reads again).
      const changed = await trx.updateTable('issues').set({ status, resolved_at: status === 'resolved' ? now : null })
        .where('project_id', '=', projectId).where('id', '=', issueId).where('status', '=', row.status).executeTakeFirst()
      if (Number(changed.numUpdatedRows) === 0) continue
      if (row.status !== status) {
        await addTotal(trx, projectId, row.status, -1)
        await addTotal(trx, projectId, status, 1)
      }
      return row.status
    }
  })
}

/**
 * Points further fingerprints at existing issues — a stack grouped again once its source map arrived —
 * so the bug's later events join its issue instead of opening a second one. A fingerprint already
 * leading somewhere keeps its issue. Returns how many were added.
 */
export async function aliasFingerprints(
  db: Kysely<Database>, projectId: string, aliases: readonly { fingerprint: string; version: number; issueId: string }[],
): Promise<number> {
  let added = 0
  for (const a of aliases) {
    const result = await db.insertInto('issue_fingerprints')
      .values({ project_id: projectId, fingerprint: a.fingerprint, grouping_version: a.version, issue_id: a.issueId })
      .onConflict((oc) => oc.columns(['project_id', 'fingerprint']).doNothing()).executeTakeFirst()
    added += Number(result.numInsertedOrUpdatedRows ?? 0)
  }
  return added
}

/** Deletes every issue row of a project being deleted (src/projects/delete.ts), its visits already gone. */
export const forgetProject = (trx: Db, projectId: string): Promise<void> => deleteProjectRows(trx,
  ['issue_comments', 'issue_sessions', 'issue_days', 'issue_fingerprints', 'issue_release_totals', 'issue_totals', 'issues'], projectId)
