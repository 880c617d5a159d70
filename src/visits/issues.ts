/*
 * The issues of a visit's events: the steps of writeBatches and of session deletion that keep
 * issues, their fingerprints, the issue–visit links and the per-status totals exact, and
 * setIssueStatus, the one operation that changes an issue's status. Features reach the issue tables
 * only through writeBatches, deleteExpired, setIssueStatus and the reads.
 *
 * The counting rule: an issue counts the stored events grouped into it and the distinct stored
 * visits that hold them. A retried batch adds nothing (only inserted events count); a visit that
 * retention or erasure deletes takes its events out of the counts. An issue whose visits are all
 * gone stays, with its status, first and last seen, and zero counts: a resolved bug that recurs
 * after its visits expired is a regression, and an ignored one stays ignored.
 */
import type { Kysely } from 'kysely'
import { enqueueIssueAlert } from '../alerts/store.ts'
import { canMatch, type Database, type Db } from '../db/database.ts'
import type { EventRecord } from '../events/types.ts'
import { createHash } from 'node:crypto'
import type { IssueStatus, IssueTable } from './tables.ts'

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
  issue: Pick<IssueTable, 'project_id' | 'id' | 'type' | 'title' | 'culprit' | 'first_seen_at' | 'last_seen_at' | 'events' | 'sessions'>
}

/** The issue a fingerprint leads to, as the batch found or made it. */
interface Target {
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
 */
export async function issueTargets(
  trx: Db, projectId: string, events: readonly EventRecord[], groups: readonly (EventGroup | null)[], now: number,
): Promise<{ issueIds: (string | null)[]; targets: Map<string, Target> }> {
  const targets = new Map<string, Target>()
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
  await findTargets(trx, projectId, [...wanted.keys()], targets)
  for (const [fingerprint, w] of wanted) {
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
    }).execute()
    await addTotal(trx, projectId, 'open', 1)
    targets.set(fingerprint, { issueId, created: true, status: 'open', resolvedAt: null })
  }
  return { issueIds: groups.map((g) => (g ? targets.get(g.fingerprint)?.issueId ?? null : null)), targets }
}

/**
 * An issue's id, from the fingerprint that created it: the same events grouped in another database
 * (an import) give the same ids, so an export → import round trip is lossless. 72 bits: ids are
 * unique within a project (the key) by a wide margin.
 */
const issueIdOf = (fingerprint: string): string => createHash('sha256').update(fingerprint).digest('base64url').slice(0, 12)

async function findTargets(trx: Db, projectId: string, fingerprints: string[], into: Map<string, Target>): Promise<void> {
  const rows = await trx.selectFrom('issue_fingerprints as f')
    .innerJoin('issues as i', (j) => j.onRef('i.project_id', '=', 'f.project_id').onRef('i.id', '=', 'f.issue_id'))
    .select(['f.fingerprint', 'i.id', 'i.status', 'i.resolved_at'])
    .where('f.project_id', '=', projectId).where('f.fingerprint', 'in', fingerprints).execute()
  for (const r of rows) into.set(r.fingerprint, { issueId: r.id, created: false, status: r.status, resolvedAt: r.resolved_at })
}

/**
 * Counts the events this batch stored into their issues, links the issues to the visit, and queues
 * the alerts of the issues it created or reopened (src/alerts). Reopens a
 * resolved issue when an event happened after it was resolved (a late retry of an older event does
 * not). An issue created for this batch whose every event turned out already stored (a retry
 * grouped differently) is removed again. Issues are updated in id order, so concurrent batches on
 * PostgreSQL lock them in the same order and cannot deadlock on them.
 */
export async function countIssueEvents(
  trx: Db, projectId: string, sessionId: string, stored: readonly { issueId: string | null; createdAt: number }[],
  targets: ReadonlyMap<string, Target>,
): Promise<IssueChange[]> {
  const byIssue = new Map<string, { events: number; first: number; last: number }>()
  for (const s of stored) {
    if (s.issueId === null) continue
    const c = byIssue.get(s.issueId)
    if (c) {
      c.events++
      c.first = Math.min(c.first, s.createdAt)
      c.last = Math.max(c.last, s.createdAt)
    } else {
      byIssue.set(s.issueId, { events: 1, first: s.createdAt, last: s.createdAt })
    }
  }
  const changes: IssueChange[] = []
  const targetOf = new Map([...targets.values()].map((t) => [t.issueId, t]))
  for (const [issueId, c] of [...byIssue].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const linked = await trx.updateTable('issue_sessions').set((eb) => ({ events: eb('events', '+', c.events) }))
      .where('project_id', '=', projectId).where('issue_id', '=', issueId).where('session_id', '=', sessionId)
      .executeTakeFirst()
    let newVisit = 0
    if (Number(linked.numUpdatedRows) === 0) {
      await trx.insertInto('issue_sessions')
        .values({ project_id: projectId, issue_id: issueId, session_id: sessionId, events: c.events }).execute()
      newVisit = 1
    }
    const issue = await trx.updateTable('issues').set((eb) => ({
      events: eb('events', '+', c.events),
      sessions: eb('sessions', '+', newVisit),
      first_seen_at: eb.case().when('first_seen_at', '>', c.first).then(c.first).else(eb.ref('first_seen_at')).end(),
      last_seen_at: eb.case().when('last_seen_at', '<', c.last).then(c.last).else(eb.ref('last_seen_at')).end(),
    })).where('project_id', '=', projectId).where('id', '=', issueId)
      .returning(['project_id', 'id', 'type', 'title', 'culprit', 'first_seen_at', 'last_seen_at', 'events', 'sessions'])
      .executeTakeFirstOrThrow()
    const target = targetOf.get(issueId)
    if (target?.created) changes.push({ kind: 'new', at: issue.first_seen_at, issue })
    if (target?.status === 'resolved' && (target.resolvedAt ?? Infinity) < c.last) {
      // Conditional, so of two batches that both saw it resolved only one reopens it.
      const reopened = await trx.updateTable('issues').set({ status: 'open', resolved_at: null })
        .where('project_id', '=', projectId).where('id', '=', issueId)
        .where('status', '=', 'resolved').where('resolved_at', '<', c.last).executeTakeFirst()
      if (Number(reopened.numUpdatedRows) > 0) {
        await addTotal(trx, projectId, 'resolved', -1)
        await addTotal(trx, projectId, 'open', 1)
        changes.push({ kind: 'regression', at: c.last, issue })
      }
    }
  }
  // In the batch's transaction: an alert is queued exactly when the change it tells of commits.
  for (const c of changes) {
    const i = c.issue
    await enqueueIssueAlert(trx, {
      projectId, kind: c.kind, at: c.at,
      issue: {
        id: i.id, type: i.type, title: i.title, culprit: i.culprit, firstSeenAt: i.first_seen_at, lastSeenAt: i.last_seen_at,
        events: i.events, sessions: i.sessions,
      },
    })
  }
  for (const t of targets.values()) {
    if (!t.created || byIssue.has(t.issueId)) continue
    await trx.deleteFrom('issue_fingerprints').where('project_id', '=', projectId).where('issue_id', '=', t.issueId).execute()
    await trx.deleteFrom('issues').where('project_id', '=', projectId).where('id', '=', t.issueId).execute()
    await addTotal(trx, projectId, 'open', -1)
  }
  return changes
}

/** Takes deleted visits out of their issues' counts and drops their links. Before the visits' rows go. */
export async function forgetVisits(trx: Db, projectId: string, sessionIds: readonly string[]): Promise<void> {
  if (sessionIds.length === 0) return
  const links = await trx.selectFrom('issue_sessions').select(['issue_id', 'events'])
    .where('project_id', '=', projectId).where('session_id', 'in', sessionIds).execute()
  if (links.length === 0) return
  const byIssue = new Map<string, { events: number; sessions: number }>()
  for (const l of links) {
    const c = byIssue.get(l.issue_id) ?? { events: 0, sessions: 0 }
    c.events += l.events
    c.sessions++
    byIssue.set(l.issue_id, c)
  }
  for (const [issueId, c] of [...byIssue].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    await trx.updateTable('issues').set((eb) => ({ events: eb('events', '-', c.events), sessions: eb('sessions', '-', c.sessions) }))
      .where('project_id', '=', projectId).where('id', '=', issueId).execute()
  }
  await trx.deleteFrom('issue_sessions').where('project_id', '=', projectId).where('session_id', 'in', sessionIds).execute()
}

/** Moves a project's count of issues in `status` by `delta`. */
export async function addTotal(trx: Db, projectId: string, status: IssueStatus, delta: number): Promise<void> {
  await trx.insertInto('issue_totals').values({ project_id: projectId, status, issues: delta })
    .onConflict((oc) => oc.columns(['project_id', 'status']).doUpdateSet((eb) => ({ issues: eb('issue_totals.issues', '+', eb.ref('excluded.issues')) })))
    .execute()
}

/**
 * Sets an issue's status (resolve, ignore, reopen) and moves the per-status totals in the same
 * transaction. Resolving records when, so only an event after it reopens the issue. Returns the
 * status it had, or null when the project has no such issue.
 */
export async function setIssueStatus(
  db: Kysely<Database>, projectId: string, issueId: string, status: IssueStatus, now: number,
): Promise<IssueStatus | null> {
  if (!canMatch(issueId)) return null
  return db.transaction().execute(async (trx) => {
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
