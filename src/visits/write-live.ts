/**
 * How writeBatches (write.ts) reserves a live visit's seq range for a batch: a private step of that one write
 * operation, in a file of its own for length. A batch reserves on its own (`reserveOne`), or the first batches of a
 * group's visits reserve together in one statement (`reserveLive`); either way the batch's counters and facts go into
 * its visit's row with the reservation.
 */
import { sql } from 'kysely'
import type { Db } from '../db/database.ts'
import { runReused } from '../db/reuse.ts'
import { asKey, unindexed } from '../db/sql.ts'
import { AppError } from '../errors.ts'
import { countTypes } from '../events/types.ts'
import { FACT_COLUMNS, factColumns, factValues, keepFacts, keepFactsFrom, keepFactsSql, noFacts } from './facts.ts'
import { visitKey, type TermRow } from './search.ts'
import type { SessionSeed, WriteJob } from './write.ts'

/** A batch's first and last instants: its events', widened by the bounds its seed knows (import). */
export function boundsOf(job: WriteJob): { startedAt: number; lastSeenAt: number } {
  let first = job.seed.startedAt ?? Infinity
  let last = job.seed.lastSeenAt ?? -Infinity
  for (const e of job.events) {
    first = Math.min(first, e.createdAt)
    last = Math.max(last, e.createdAt)
  }
  const startedAt = Number.isFinite(first) ? first : job.now
  return { startedAt, lastSeenAt: Number.isFinite(last) ? last : startedAt }
}

/** A live visit's row as a batch's reservation returns it: what the rest of the batch's writing needs of it. */
export interface LiveRow extends TermRow {
  next_seq: number
  country: string | null
  browser: string | null
  os: string | null
}

/** The columns a reservation returns. */
const LIVE_RETURNS = ['id', 'next_seq', 'start_day', 'terms', 'country', 'browser', 'os'] as const

/**
 * The common case, in two statements: a live session whose start this batch does not move.
 * One UPDATE reserves the batch's seq range and adds its counters (optimistically: a retried
 * batch is corrected below), one INSERT stores the events. No row matches — new, expired, or an
 * event earlier than the session's start — and the general path takes over (null).
 */
export async function reserveOne(trx: Db, job: WriteJob, startedAt: number, lastSeenAt: number): Promise<Reservation | null> {
  const { projectId, seed, events, cutoff } = job
  const n = events.length
  if (n === 0) return null
  const counts = countTypes(events.map((e) => e.type))
  // Every batch of a live visit runs this: built once (runReused), with the values in the SQL's order.
  const params = [n, lastSeenAt, lastSeenAt, counts.total, counts.errors, counts.slow, ...factValues(seed),
    projectId, seed.sessionKey, cutoff, startedAt]
  const [row] = (await runReused(trx, 'update live session', params, () => trx.updateTable('sessions').set((eb) => ({
    next_seq: eb('next_seq', '+', n),
    last_seen_at: sql<number>`case when last_seen_at < ${lastSeenAt} then ${lastSeenAt} else last_seen_at end`,
    events_total: eb('events_total', '+', counts.total),
    events_errors: eb('events_errors', '+', counts.errors),
    events_slow: eb('events_slow', '+', counts.slow),
    ...keepFactsSql(seed),
  })).where('project_id', '=', projectId).where('session_key', '=', seed.sessionKey)
    .where('last_seen_at', '>=', cutoff).where('started_at', '<=', startedAt)
    .returning(LIVE_RETURNS))).rows
  if (!row) return null
  // Import names the session; a key owned by another session is a conflict (the savepoint undoes the UPDATE).
  if (seed.id !== undefined && row.id !== seed.id) throw keyConflict(seed, row.id)
  return { row, base: row.next_seq - n }
}

/**
 * The values of one batch in a group's reservation, in RESERVE_COLUMNS order, and their SQL types: counts as integer,
 * instants as bigint, the visit's key as its key columns are (asKey), the rest text (PostgreSQL types a VALUES column by its
 * values, and a parameter has none).
 */
const RESERVE_COLUMNS = [
  ['n', 'integer'], ['last', 'bigint'], ['total', 'integer'], ['errors', 'integer'], ['slow', 'integer'],
  ...FACT_COLUMNS.map((c) => [c, 'text'] as const), ['project_id', 'key'], ['session_key', 'key'], ['cutoff', 'bigint'], ['started', 'bigint'],
] as const

/** Batches per reservation statement at most; a statement's row count is the next power of two, so few shapes are built. */
const RESERVE_CHUNK = 256

/**
 * The live visits' reservations of a group, one statement for them all instead of one a batch (a round trip each on
 * PostgreSQL: docs/performance.md): an UPDATE … FROM a VALUES table with a row per visit, which matches the rows
 * reserveOne's UPDATE would, does to each what its batches would one after another, and returns the same columns.
 *
 * A visit's row stands for its leading batches in the group, those before its first batch without events (an
 * identify, a recording chunk: the general path's, which its later batches must see). Their counts are summed, their
 * facts merged in job order (keepFacts), and the visit must be live for the strictest cutoff and start before the
 * earliest event. The visit's seq range is then theirs in job order: each batch's base follows the one before it.
 * A group with an import (a batch naming its session) reserves batch by batch: a session found by its id may be
 * another key's.
 *
 * Returns, per batch index, its reservation: the visit's row (one object for the visit's batches, whose terms the
 * first batch's writing updates for the next: storeLive) and the batch's base, or null for a visit's first batch when
 * no live visit took them (the general path's case; the batches after it then try on their own, once it has written
 * the visit). Batches not tried are absent.
 */
export async function reserveLive(trx: Db, jobs: readonly WriteJob[]): Promise<Map<number, Reservation | null>> {
  const reserved = new Map<number, Reservation | null>()
  if (jobs.some((j) => j.seed.id !== undefined)) return reserved
  const visits = new Map<string, { jobs: number[]; open: boolean }>()
  jobs.forEach((job, index) => {
    const key = visitKey(job.projectId, job.seed.sessionKey)
    const visit = visits.get(key) ?? { jobs: [], open: true }
    visits.set(key, visit)
    if (job.events.length === 0) visit.open = false
    else if (visit.open) visit.jobs.push(index)
  })
  const tried = [...visits.values()].map((v) => v.jobs).filter((v) => v.length > 0)
  // One batch alone is reserveOne's statement: no shape built again for it.
  if (tried.length === 1 && tried[0]?.length === 1) return reserved
  for (let i = 0; i < tried.length; i += RESERVE_CHUNK) {
    const chunk = tried.slice(i, i + RESERVE_CHUNK)
    const rows = new Map<string, LiveRow>()
    for (const row of await reserveRows(trx, chunk.map((visit) => visit.map((index) => jobs[index] as WriteJob)))) {
      rows.set(visitKey(row.project_id, row.session_key), row)
    }
    for (const visit of chunk) {
      const [first = 0] = visit
      const firstJob = jobs[first] as WriteJob
      const row = rows.get(visitKey(firstJob.projectId, firstJob.seed.sessionKey))
      if (!row) {
        reserved.set(first, null)
        continue
      }
      let base = row.next_seq - visit.reduce((n, index) => n + (jobs[index]?.events.length ?? 0), 0)
      for (const index of visit) {
        reserved.set(index, { row, base })
        base += jobs[index]?.events.length ?? 0
      }
    }
  }
  return reserved
}

/** A batch's reservation on its live visit: the visit's row after it, and the first seq of the batch's range. */
export interface Reservation {
  row: LiveRow
  base: number
}

/** One reservation statement, a row for each visit's leading batches; the rows of the visits that took them. */
async function reserveRows(trx: Db, visits: readonly (readonly WriteJob[])[]): Promise<(LiveRow & { project_id: string; session_key: string })[]> {
  const size = 2 ** Math.ceil(Math.log2(visits.length))
  const params: unknown[] = []
  for (const batches of visits) {
    let [n, last, started, cutoff] = [0, -Infinity, Infinity, -Infinity]
    const types: string[] = []
    for (const job of batches) {
      const bounds = boundsOf(job)
      n += job.events.length
      last = Math.max(last, bounds.lastSeenAt)
      started = Math.min(started, bounds.startedAt)
      cutoff = Math.max(cutoff, job.cutoff)
      for (const e of job.events) types.push(e.type)
    }
    const counts = countTypes(types)
    const facts = batches.reduce((row, job) => keepFacts(row, job.seed), factColumns(noFacts()))
    const [{ projectId, seed: { sessionKey } } = { projectId: null, seed: { sessionKey: null } }] = batches
    params.push(n, last, counts.total, counts.errors, counts.slow, ...FACT_COLUMNS.map((c) => facts[c]), projectId, sessionKey, cutoff, started)
  }
  // Rows of nulls up to the statement's size: a null key joins no session.
  params.push(...new Array<null>((size - visits.length) * RESERVE_COLUMNS.length).fill(null))
  const v = (column: (typeof RESERVE_COLUMNS)[number][0]) => sql.ref(`v.${column}`)
  const build = () => {
    const cell = (type: (typeof RESERVE_COLUMNS)[number][1], value: unknown) =>
      (type === 'key' ? asKey(trx, value) : sql`cast(${value} as ${sql.raw(type)})`)
    const values = Array.from({ length: size }, (_, row) => sql`(${sql.join(RESERVE_COLUMNS.map(([, type], k) =>
      cell(type, params[row * RESERVE_COLUMNS.length + k])))})`)
    const set = {
      next_seq: sql`sessions.next_seq + ${v('n')}`,
      last_seen_at: sql`case when sessions.last_seen_at < ${v('last')} then ${v('last')} else sessions.last_seen_at end`,
      events_total: sql`sessions.events_total + ${v('total')}`,
      events_errors: sql`sessions.events_errors + ${v('errors')}`,
      events_slow: sql`sessions.events_slow + ${v('slow')}`,
      ...keepFactsFrom('v'),
    }
    // The bounds filter the key's row: `+column` keeps the planner on the key's index, whatever the bounds' ranges.
    const statement = sql<LiveRow & { project_id: string; session_key: string }>`with v (${sql.join(RESERVE_COLUMNS.map(([c]) => sql.ref(c)))}) as (values ${sql.join(values)})
update sessions set ${sql.join(Object.entries(set).map(([column, value]) => sql`${sql.ref(column)} = ${value}`))}
from v where sessions.project_id = ${v('project_id')} and sessions.session_key = ${v('session_key')}
and ${unindexed('sessions.last_seen_at')} >= ${v('cutoff')} and ${unindexed('sessions.started_at')} <= ${v('started')}
returning ${sql.join(['project_id', 'session_key', ...LIVE_RETURNS].map((c) => sql.ref(`sessions.${c}`)))}`
    return { compile: () => statement.compile(trx) }
  }
  return (await runReused(trx, `reserve live sessions ${size}`, params, build)).rows
}

export const keyConflict = (seed: SessionSeed, owner: string): AppError =>
  new AppError(409, 'invalid_body', `sessionKey "${seed.sessionKey}" already belongs to session ${owner}, not ${seed.id ?? ''}`)

