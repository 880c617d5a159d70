/**
 * How a visit's events and recording chunks enter the database: `writeBatches`, the one write
 * operation of the visit (ingest and import reach it through the group-commit writer). Everything
 * else in this file is its private steps: find or open the session, reserve its sequence numbers,
 * insert what is new, grow the counters, keep the day counters exact.
 */
import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, Db } from '../database.ts'
import { classifyDatabaseError, retrying } from '../db/errors.ts'
import { nextSessionNum } from '../db/sql.ts'
import { countTypes } from '../contract/index.ts'
import { timeOrderedId } from '../util/ids.ts'
import { dayOf } from '../util/time.ts'
import { deleteSessions } from './delete.ts'
import type { SessionTable } from './tables.ts'
import { factColumns, keepFacts } from './facts.ts'
import { IssueDeltas, issueTargets, knownIssues, type IssueChange, type IssueTarget } from '../issues/index.ts'
import { VisitOutcomes, visitOutcome } from '../releases/index.ts'
import { PageDeltas } from '../pages/index.ts'
import { DayDeltas, indexBatch, insertTexts, moveTerms, rememberTexts, type IndexedTexts } from '../search/index.ts'
import { appendChunks, type RecordingResult } from './write-chunks.ts'
import { correctCounters, countPages, GroupEvents, insertedRows, insertEvents } from './write-events.ts'
import { boundsOf, keyConflict, reserveOne, Reservations, type Reservation } from './write-live.ts'

export type { ChunkRecord, RecordingResult } from './write-chunks.ts'

import type { SessionSeed, WriteJob } from './job.ts'

export type { SessionSeed, WriteJob } from './job.ts'

export interface AppendResult {
  sessionId: string
  accepted: number
  duplicates: number
  recording?: RecordingResult
  /** Issues this batch created or reopened (first in its group to store their events), queued for alerting in its transaction. */
  issues?: IssueChange[]
}

type SessionRow = Selectable<SessionTable>
/** Where a batch counts its issue events (applied for the whole group before the commit), and its place in the group. */
interface IssueBatch {
  deltas: IssueDeltas
  /** Where it counts its newly stored events per page (applied for the whole group before the commit). */
  pages: PageDeltas
  job: number
  /** The issues of fingerprints the group has looked up or created so far (issueTargets). */
  known: { cache: Map<string, IssueTarget>; created: string[] }
  /** The batch's new searchable texts, written for the group before it commits (search.ts). */
  texts: IndexedTexts[]
  /** A group written without savepoints: a live batch's events join its INSERTs, made before it commits. */
  events?: GroupEvents
}
/**
 * Stores a batch of events in its session, creating the session on first sight. Events already
 * stored (same id) are skipped, so a retried batch changes nothing; counters grow only by what
 * was new. Run inside a transaction and apply `days` before it commits. On PostgreSQL the first
 * statement locks the session row, which serializes concurrent batches of one session.
 *
 * `reserved` is what the group's reservations (write-live.ts) made for this batch: its seq range on its live visit, null
 * when no live visit took it (the general path's case), undefined when it was not tried (the batch then tries on its own).
 */
async function appendEvents(trx: Db, job: WriteJob, days: DayDeltas, issues: IssueBatch, reserved: Reservation | null | undefined): Promise<AppendResult> {
  const { startedAt, lastSeenAt } = boundsOf(job)
  const live = reserved === undefined ? await reserveOne(trx, job, startedAt, lastSeenAt) : reserved
  return live ? storeLive(trx, job, live, days, issues) : appendGeneral(trx, job, startedAt, lastSeenAt, days, issues)
}

/** The rest of a live batch, once its visit's row holds its seq range: its issues, its terms and text, its events. */
async function storeLive(trx: Db, job: WriteJob, { row, base }: Reservation, days: DayDeltas, issues: IssueBatch): Promise<AppendResult> {
  const { projectId, seed, events } = job
  const n = events.length
  const counts = countTypes(events.map((e) => e.type))
  const { issueIds, targets } = await issueTargets(trx, projectId, events, job.groups, job.now, issues.known, seed)
  indexBatch(job, row, { ...row, tags: seed.tags }, base, days, issues.texts)
  const placement = { projectId, sessionId: row.id, base, events, issueIds }
  const result: AppendResult = { sessionId: row.id, accepted: n, duplicates: 0 }
  if (issues.events) {
    issues.events.add({ ...placement, counted: counts, targets, deltas: issues.deltas, pages: issues.pages, job: issues.job, result })
    return result
  }
  const rows = await insertedRows(trx, placement, await insertEvents(trx, placement))
  if (targets.size > 0) issues.deltas.add(projectId, row.id, rows, targets, issues.job)
  countPages(issues.pages, placement, rows)
  await correctCounters(trx, placement, counts, rows)
  return { ...result, accepted: rows.length, duplicates: n - rows.length }
}

async function appendGeneral(
  trx: Db, job: WriteJob, startedAt: number, lastSeenAt: number, days: DayDeltas, issues: IssueBatch,
): Promise<AppendResult> {
  const { projectId, seed, events, cutoff } = job
  let session = await findSession(trx, projectId, seed)
  if (session && session.last_seen_at < cutoff) {
    // An expired session is gone for readers; reviving it would resurrect old events.
    await deleteSessions(trx, projectId, [session], days)
    session = undefined
  }
  const sessionId = session?.id ?? (await createSession(trx, projectId, seed, startedAt, lastSeenAt, days, job.now))
  const locked = await reserveSeq(trx, projectId, sessionId, events.length)
  const base = locked.next_seq - events.length
  const { issueIds, targets } = await issueTargets(trx, projectId, events, job.groups, job.now, issues.known, seed)
  const placement = { projectId, sessionId, base, events, issueIds }
  const rows = await insertedRows(trx, placement, await insertEvents(trx, placement))
  if (targets.size > 0) issues.deltas.add(projectId, sessionId, rows, targets, issues.job)
  countPages(issues.pages, placement, rows)
  const facts = keepFacts(locked, seed)
  const terms = indexBatch(job, locked, { ...facts, tags: seed.tags }, base, days, issues.texts)
  await updateSession(trx, locked, facts, terms, rows.map((r) => r.type), Math.min(startedAt, locked.started_at),
    Math.max(lastSeenAt, locked.last_seen_at), days)
  return { sessionId, accepted: rows.length, duplicates: events.length - rows.length }
}

async function findSession(trx: Db, projectId: string, seed: SessionSeed): Promise<SessionRow | undefined> {
  const byKey = await trx.selectFrom('sessions').selectAll()
    .where('project_id', '=', projectId).where('session_key', '=', seed.sessionKey).executeTakeFirst()
  if (seed.id === undefined || byKey?.id === seed.id) return byKey
  if (byKey) throw keyConflict(seed, byKey.id)
  return trx.selectFrom('sessions').selectAll()
    .where('project_id', '=', projectId).where('id', '=', seed.id).executeTakeFirst()
}

async function createSession(
  trx: Db, projectId: string, seed: SessionSeed, startedAt: number, lastSeenAt: number, days: DayDeltas, now: number,
): Promise<string> {
  const id = seed.id ?? timeOrderedId(now)
  const created = await trx.insertInto('sessions').values({
    project_id: projectId, id, session_key: seed.sessionKey, started_at: startedAt, start_day: dayOf(startedAt),
    last_seen_at: lastSeenAt, ...factColumns(seed),
    events_total: 0, events_errors: 0, events_slow: 0, recording_chunks: 0, recording_bytes: 0, recording_dropped: 0, recording_evicted: 0, recording_mode: null,
    next_seq: 0, num: nextSessionNum(trx),
  }).onConflict((oc) => oc.columns(['project_id', 'session_key']).doNothing()).returning('id').executeTakeFirst()
  if (created) {
    days.add(projectId, dayOf(startedAt), 1)
    return created.id
  }
  // Another process created it between our read and insert: use theirs.
  const existing = await trx.selectFrom('sessions').select('id')
    .where('project_id', '=', projectId).where('session_key', '=', seed.sessionKey).executeTakeFirstOrThrow()
  return existing.id
}

async function reserveSeq(trx: Db, projectId: string, sessionId: string, n: number): Promise<SessionRow> {
  return trx.updateTable('sessions').set((eb) => ({ next_seq: eb('next_seq', '+', n) }))
    .where('project_id', '=', projectId).where('id', '=', sessionId)
    .returningAll().executeTakeFirstOrThrow()
}

async function updateSession(
  trx: Db, row: SessionRow, facts: ReturnType<typeof keepFacts>, terms: readonly string[], insertedTypes: string[], startedAt: number,
  lastSeenAt: number, days: DayDeltas,
): Promise<void> {
  const add = countTypes(insertedTypes)
  const startDay = dayOf(startedAt)
  if (startDay !== row.start_day) {
    days.add(row.project_id, row.start_day, -1)
    days.add(row.project_id, startDay, 1)
    moveTerms(row.project_id, terms, row.start_day, startDay, days)
  }
  await trx.updateTable('sessions').set({
    started_at: startedAt,
    start_day: startDay,
    last_seen_at: lastSeenAt,
    ...facts,
    events_total: row.events_total + add.total,
    events_errors: row.events_errors + add.errors,
    events_slow: row.events_slow + add.slow,
  }).where('project_id', '=', row.project_id).where('id', '=', row.id).execute()
}

/** What became of one batch of a group: its result, or the error that failed it alone. */
export type Outcome = { result: AppendResult } | { error: unknown }

/** A batch failed in a group written without savepoints: the group is rolled back and written again with them. */
class BatchFailed extends Error {
  constructor(readonly error: unknown) {
    super('a batch of the group failed')
  }
}

/**
 * Writes several visitors' batches in one transaction — the one named operation by which events and recording chunks
 * enter the database. One failing batch fails alone; the day counters and searchable texts of the whole group are
 * written once, last, before the commit. A deadlock or serialization failure runs the whole group again (up to 3
 * times); an outage or a full disk fails the whole group with the error that says why.
 *
 * A savepoint around each batch is what lets one fail alone, but it costs two statements a batch — two round trips on
 * PostgreSQL, where a 20-event batch of a live visit takes two more. Batches almost never fail (they were validated
 * before), so a group is first written without savepoints; if a batch fails, the transaction is rolled back and the
 * group written again, each batch in its own savepoint. A group of one batch needs none: its failure is the group's.
 */
export async function writeBatches(db: Kysely<Database>, jobs: readonly WriteJob[]): Promise<Outcome[]> {
  let isolated = false
  return retrying(async () => {
    for (;;) {
      try {
        const { outcomes, texts } = await db.transaction().execute((trx) => writeGroup(trx, jobs, isolated))
        rememberTexts(texts)
        return outcomes
      } catch (error) {
        if (!(error instanceof BatchFailed)) throw error
        if (jobs.length === 1) return [{ error: error.error }]
        // Not one of the group's tries (retrying's): nothing of the database failed.
        isolated = true
      }
    }
  })
}

async function writeGroup(trx: Db, jobs: readonly WriteJob[], isolated: boolean): Promise<{ outcomes: Outcome[]; texts: IndexedTexts[] }> {
  const days = new DayDeltas()
  const issues = new IssueDeltas()
  const known = { cache: new Map<string, IssueTarget>(), created: [] as string[] }
  const outcomes: Outcome[] = []
  const texts: IndexedTexts[] = []
  const health = new VisitOutcomes()
  // Each stored batch's issue and page counts, merged in job order once the group's events are in (a live batch's are
  // counted only then, when the group writes its events together).
  const stored: { issues: IssueDeltas; pages: PageDeltas }[] = []
  const pages = new PageDeltas()
  const events = isolated ? undefined : new GroupEvents()
  // In savepoints each batch reserves its own: a failure is then its own.
  const reservations = new Reservations(jobs, !isolated)
  await reservations.reserveFirst(trx).catch((error: unknown) => { throw failure(error) })
  await knownIssues(trx, jobs, known.cache).catch((error: unknown) => { throw failure(error) })
  for (const [index, job] of jobs.entries()) {
    if (isolated) await sql`savepoint batch`.execute(trx)
    const before = new DayDeltas(days)
    const batchIssues = new IssueDeltas()
    const batchPages = new PageDeltas()
    try {
      known.created = []
      const batchTexts: IndexedTexts[] = []
      const result = await appendEvents(trx, job, before, { deltas: batchIssues, pages: batchPages, job: index, known, texts: batchTexts, events }, await reservations.of(trx, index))
      const recording = job.recording
      if (recording) result.recording = await appendChunks(trx, job.projectId, result.sessionId, recording.chunks, recording.maxSessionBytes, job.now, before)
      if (isolated) await sql`release savepoint batch`.execute(trx)
      before.mergeInto(days)
      stored.push({ issues: batchIssues, pages: batchPages })
      texts.push(...batchTexts)
      outcomes.push({ result })
      health.add(job.projectId, result.sessionId, job.seed, visitOutcome(job.events))
    } catch (error) {
      if (!isolated) throw failure(error)
      // A deadlock, an outage or a full disk is no fault of this batch: the whole group fails
      // (or runs again) with the error that says why, and the transaction may be gone anyway.
      if (classifyDatabaseError(error) !== null) throw error
      await sql`rollback to savepoint batch`.execute(trx)
      // The issues this batch created are gone with its savepoint.
      for (const key of known.created) known.cache.delete(key)
      await sql`release savepoint batch`.execute(trx)
      outcomes.push({ error })
    }
  }
  await events?.insert(trx).catch((error: unknown) => { throw failure(error) })
  for (const batch of stored) {
    batch.issues.mergeInto(issues)
    batch.pages.mergeInto(pages)
  }
  await insertTexts(trx, texts)
  const newVisits = await issues.link(trx)
  // After every batch's session row is up to date: a visit counts with the release and user its row now has.
  await health.apply(trx)
  // The hot rows last (a day's counters, an issue's): each is locked from its update until the commit, and a
  // concurrent group (another lane, another process) that needs it waits that long.
  await days.apply(trx, pages.upserts())
  for (const { job, change } of await issues.apply(trx, newVisits)) {
    const outcome = outcomes[job]
    if (outcome && 'result' in outcome) (outcome.result.issues ??= []).push(change)
  }
  return { outcomes, texts }
}

/**
 * What fails a group written without savepoints: a deadlock, an outage or a full disk as it is (no fault of a batch:
 * the whole group fails, or runs again, with the error that says why); anything else as BatchFailed, so the group is
 * written again with a savepoint per batch and the batch at fault fails alone.
 */
const failure = (error: unknown): unknown => (classifyDatabaseError(error) !== null ? error : new BatchFailed(error))
