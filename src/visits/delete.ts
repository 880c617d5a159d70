import { sql, type Kysely } from 'kysely'
import { SWEEP_BATCH } from './limits.ts'
import type { Database, Db } from '../database.ts'
import { canMatch } from '../db/sql.ts'
import { retrying } from '../db/errors.ts'
import { DAY_MS } from '../util/time.ts'
import { DayDeltas, forgetTexts, termsOf } from '../search/index.ts'
import { byKey } from '../issues/index.ts'
import { forgetVisitUnits } from '../releases/index.ts'
import { forgetVisits as forgetLinks } from '../replay-links/store.ts'
import { type BlobRef, trashBlobs } from './trash.ts'

interface SessionRef {
  id: string
}

/** The oldest sessions of a project whose last activity is before `cutoff`, at most `limit`. */
function findExpired(db: Db, projectId: string, cutoff: number, limit: number): Promise<SessionRef[]> {
  return db.selectFrom('sessions').select(['id'])
    .where('project_id', '=', projectId).where('last_seen_at', '<', cutoff)
    .orderBy('last_seen_at').orderBy('id').limit(limit).execute()
}

/**
 * Deletes sessions with their events, recordings and issue links (their events leave the issues'
 * counts, forgetVisits), and records the day-counter and term-bit changes in `days` (apply them in the same
 * transaction). Counters drop by the rows this call actually deleted: when two
 * processes sweep the same sessions, the second finds them gone and changes nothing.
 * Returns how many sessions it deleted.
 */
export async function deleteSessions(
  db: Db, projectId: string, refs: readonly SessionRef[], days: DayDeltas,
): Promise<number> {
  if (refs.length === 0) return 0
  const ids = refs.map((r) => r.id)
  const deleted = await db.deleteFrom('sessions').where('project_id', '=', projectId).where('id', 'in', ids)
    .returning(['id', 'start_day', 'num', 'terms', 'recording_bytes']).execute()
  // Only the visits this call deleted leave their issues' counts: after the sessions, so every writer
  // locks a visit's session row before its issues, and before the events, which they are counted from.
  await forgetVisits(db, projectId, deleted.map((r) => r.id))
  await forgetVisitUnits(db, projectId, deleted.map((r) => r.id))
  await forgetLinks(db, projectId, deleted.map((r) => r.id))
  await db.deleteFrom('events').where('project_id', '=', projectId).where('session_id', 'in', ids).execute()
  await deleteChunks(db, projectId, ids)
  // A visit's terms as this transaction left them: a batch of the same group may have added some not written yet.
  const gone = deleted.map((r) => ({ ...r, terms: days.visitTerms(projectId, r.id) ?? termsOf(r) }))
  await forgetSearch(db, projectId, gone)
  for (const r of gone) {
    days.forgetVisit(projectId, r.id)
    days.add(projectId, r.start_day, -1)
    if (r.recording_bytes > 0) days.addRecording(projectId, -r.recording_bytes)
    for (const t of r.terms) {
      days.addTerm(projectId, t, r.start_day, -1)
      days.markTerm(projectId, t, r.num, false)
    }
  }
  return deleted.length
}

/** Removes deleted visits' terms (each visit's row lists its own) and searchable text. */
async function forgetSearch(db: Db, projectId: string, deleted: readonly { id: string; terms: readonly string[] }[]): Promise<void> {
  const byTerm = new Map<string, string[]>()
  for (const { id, terms } of deleted) {
    for (const t of terms) {
      const ids = byTerm.get(t)
      if (ids) ids.push(id)
      else byTerm.set(t, [id])
    }
  }
  for (const [t, ids] of byKey(byTerm)) {
    await db.deleteFrom('session_terms').where('project_id', '=', projectId).where('term', '=', t).where('session_id', 'in', ids).execute()
  }
  const ids = deleted.map((r) => r.id)
  if (ids.length > 0) await db.deleteFrom('session_texts').where('project_id', '=', projectId).where('session_id', 'in', ids).execute()
  forgetTexts(projectId, ids)
}

/** Removes the chunks of deleted sessions (retention, erasure, expired-session reuse); their stores' objects go to the trash. */
async function deleteChunks(db: Db, projectId: string, sessionIds: readonly string[]): Promise<void> {
  if (sessionIds.length === 0) return
  const gone = await db.deleteFrom('recording_chunks').where('project_id', '=', projectId).where('session_id', 'in', sessionIds)
    .returning(['store_id', 'blob']).execute()
  await trashBlobs(db, gone.filter((g): g is BlobRef => g.store_id !== null && g.blob !== null), Date.now())
}

/**
 * Deletes up to `limit` of a project's sessions whose last activity is before `cutoff` (the oldest
 * first), with their events and recordings. Returns how many it deleted: 0 when none is left.
 */
export async function deleteExpired(db: Kysely<Database>, projectId: string, cutoff: number, limit: number): Promise<number> {
  const refs = await findExpired(db, projectId, cutoff, limit)
  return refs.length === 0 ? 0 : deleteInTransaction(db, projectId, refs)
}

/**
 * Deletes sessions (deleteSessions) in one short transaction of their own that also keeps the day counters
 * exact. They were found before it began, so it holds the writers only for the deleting, and deleteSessions
 * counts only what is still there to delete. A deadlock with a group of writes on PostgreSQL (it takes the visits'
 * issue rows before the day counters, a group the counters first) rolls it back, and it runs again, as the group does.
 */
function deleteInTransaction(db: Kysely<Database>, projectId: string, refs: readonly SessionRef[]): Promise<number> {
  return retrying(() => db.transaction().execute(async (trx) => {
    const days = new DayDeltas()
    const deleted = await deleteSessions(trx, projectId, refs, days)
    await days.apply(trx)
    return deleted
  }))
}

/**
 * Which visits an erasure takes: one visit by its id, every visit whose stored IP address is this text (as the
 * project stored it: a truncating project holds `203.0.113.0`, not the visitor's full address), every visit
 * identified (Sessionwatch.identify) as this user, or every visit of the project (deleting the project).
 */
export type EraseMatch = { sessionId: string } | { ip: string } | { userId: string } | { all: true }

/** The text a match compares stored values with; null for the whole project. */
const matchText = (match: EraseMatch): string | null =>
  'sessionId' in match ? match.sessionId : 'ip' in match ? match.ip : 'userId' in match ? match.userId : null

/** Up to `limit` of a project's visits matching `match` whose id sorts after `after`, in id order. */
function findMatching(db: Db, projectId: string, match: EraseMatch, after: string | null, limit: number): Promise<SessionRef[]> {
  let q = db.selectFrom('sessions').select('id').where('project_id', '=', projectId)
  if ('sessionId' in match) q = q.where('id', '=', match.sessionId)
  else if ('ip' in match) q = q.where('ip', '=', match.ip)
  else if ('userId' in match) q = q.where('user_id', '=', match.userId)
  if (after !== null) q = q.where('id', '>', after)
  return q.orderBy('id').limit(limit).execute()
}

/**
 * Erases a visitor's data, on their request: deletes the project's visits matching `match`, live or past
 * retention, with their events, recordings and search entries, and takes them out of their issues' counters,
 * issue_days, the issues' latest-event pointers and the day counters exactly as retention does (deleteSessions).
 * An address, a user or a project can hold thousands of visits, so it walks them in id order, `chunk` to a transaction,
 * and `onProgress` hears the running count after each; a visit that arrives meanwhile is taken if its id sorts
 * after the walk's place, else by the next run. Returns how many visits it deleted: running it again deletes
 * none (unless new visits matched).
 */
export async function eraseVisits(
  db: Kysely<Database>, projectId: string, match: EraseMatch,
  { chunk = SWEEP_BATCH, onProgress }: { chunk?: number; onProgress?: (erased: number) => void } = {},
): Promise<number> {
  const text = matchText(match)
  if (text !== null && !canMatch(text)) return 0
  let erased = 0
  let after: string | null = null
  for (;;) {
    const refs = await findMatching(db, projectId, match, after, chunk)
    const last = refs.at(-1)
    if (last === undefined) break
    erased += await deleteInTransaction(db, projectId, refs)
    onProgress?.(erased)
    if (refs.length < chunk) break
    after = last.id
    // Let queued requests run between chunks, as the retention sweep does.
    await new Promise((resolve) => setImmediate(resolve))
  }
  return erased
}

/** How many of the issue's most recently active visits are searched for its latest event when the one it pointed at is deleted. */
const REPOINT_VISITS = 100

/**
 * Takes deleted visits out of their issues' counts, day counts and links, and points an issue whose latest
 * event went with them at the latest event of its most recently active remaining visits (REPOINT_VISITS),
 * or at nothing. Call after the visits' session rows are deleted and before their events are: the counts
 * come from the events themselves.
 */
async function forgetVisits(trx: Db, projectId: string, sessionIds: readonly string[]): Promise<void> {
  if (sessionIds.length === 0) return
  const day = sql<number | string>`created_at / ${sql.lit(DAY_MS)}`
  const rows = await trx.selectFrom('events').select(['issue_id', 'session_id', day.as('day'), (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('project_id', '=', projectId).where('session_id', 'in', sessionIds).where('issue_id', 'is not', null)
    .groupBy(['issue_id', 'session_id', day]).execute()
  const byIssue = new Map<string, { events: number; sessions: Set<string>; days: Map<number, number> }>()
  for (const r of rows) {
    if (r.issue_id === null) continue
    let c = byIssue.get(r.issue_id)
    if (!c) byIssue.set(r.issue_id, (c = { events: 0, sessions: new Set(), days: new Map() }))
    c.events += Number(r.n)
    c.sessions.add(r.session_id)
    c.days.set(Number(r.day), (c.days.get(Number(r.day)) ?? 0) + Number(r.n))
  }
  const gone = new Set(sessionIds)
  for (const [issueId, c] of byKey(byIssue)) {
    const issue = await trx.updateTable('issues').set((eb) => ({ events: eb('events', '-', c.events), sessions: eb('sessions', '-', c.sessions.size) }))
      .where('project_id', '=', projectId).where('id', '=', issueId).returning('last_session_id').executeTakeFirst()
    for (const [d, n] of [...c.days].sort(([a], [b]) => a - b)) {
      await trx.updateTable('issue_days').set((eb) => ({ events: eb('events', '-', n) }))
        .where('project_id', '=', projectId).where('issue_id', '=', issueId).where('day', '=', d).execute()
    }
    await trx.deleteFrom('issue_days').where('project_id', '=', projectId).where('issue_id', '=', issueId).where('events', '<=', 0).execute()
    await trx.deleteFrom('issue_sessions').where('project_id', '=', projectId).where('issue_id', '=', issueId)
      .where('session_id', 'in', sessionIds).execute()
    if (issue?.last_session_id != null && gone.has(issue.last_session_id)) await repoint(trx, projectId, issueId)
  }
}

/** Points the issue at the latest of its events in its most recently active linked visits (links of deleted visits already gone). */
async function repoint(trx: Db, projectId: string, issueId: string): Promise<void> {
  const latest = await trx.selectFrom('events as e')
    .innerJoin((eb) => eb.selectFrom('issue_sessions as l')
      .innerJoin('sessions as s', (j) => j.onRef('s.project_id', '=', 'l.project_id').onRef('s.id', '=', 'l.session_id'))
      .select('s.id').where('l.project_id', '=', projectId).where('l.issue_id', '=', issueId)
      .orderBy('s.last_seen_at', 'desc').orderBy('s.id', 'desc').limit(REPOINT_VISITS).as('r'), (j) => j.onRef('r.id', '=', 'e.session_id'))
    .select(['e.session_id', 'e.id']).where('e.project_id', '=', projectId).where('e.issue_id', '=', issueId)
    .orderBy('e.created_at', 'desc').orderBy('e.seq', 'desc').limit(1).executeTakeFirst()
  await trx.updateTable('issues').set({ last_session_id: latest?.session_id ?? null, last_event_id: latest?.id ?? null })
    .where('project_id', '=', projectId).where('id', '=', issueId).execute()
}

/** How many visits the project holds (what deleting it would take). */
export async function countVisits(db: Db, projectId: string): Promise<number> {
  const row = await db.selectFrom('sessions').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', projectId).executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Whether the project holds any visit. */
export async function hasVisits(db: Db, projectId: string): Promise<boolean> {
  return (await db.selectFrom('sessions').select('id').where('project_id', '=', projectId).limit(1).executeTakeFirst()) !== undefined
}
