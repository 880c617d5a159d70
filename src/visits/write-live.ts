/**
 * How writeBatches (write.ts) reserves a live visit's seq range for a batch: a private step of that one write
 * operation, in a file of its own for length. A batch reserves on its own (`reserveOne`), or the first batches of a
 * group's visits reserve together in one statement (`reserveLive`); either way the batch's counters and facts go into
 * its visit's row with the reservation.
 */
import { sql } from 'kysely'
import type { Db } from '../database.ts'
import { runReused } from '../db/reuse.ts'
import { asKey, locksRows, unindexed } from '../db/sql.ts'
import { AppError } from '../errors.ts'
import { countTypes } from '../contract/index.ts'
import { FACT_COLUMNS } from './tables.ts'
import { factColumns, factValues, keepFacts, keepFactsFrom, keepFactsSql, noFacts } from './facts.ts'
import { visitKey, type TermRow } from '../search/index.ts'
import type { SessionSeed, WriteJob } from './job.ts'

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
const LIVE_RETURNS = ['id', 'next_seq', 'start_day', 'num', 'terms', 'country', 'browser', 'os'] as const

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
 * The values of one run in a group's reservation, in RESERVE_COLUMNS order, and their SQL types: counts as integer,
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
 * The live visits' reservations of a group, a statement for many batches instead of one a batch (a round trip each on
 * PostgreSQL: docs/performance.md): an UPDATE … FROM a VALUES table with a row per visit, which matches the rows
 * reserveOne's UPDATE would, does to each what its batches would one after another, and returns the same columns.
 *
 * A visit's row stands for a run of its batches: those in the group from one not yet reserved up to the next without
 * events (an identify, a recording chunk: the general path's, which the batches after it must see), or through one
 * with recording chunks (runFrom). Their counts are summed, their facts merged in job order (keepFacts), and the visit
 * must be live for the strictest cutoff and start before the earliest event; each batch's seq range then follows the
 * one before it. The first run of every visit reserves in one statement before the group's batches are written
 * (`reserveFirst`); a later run (after a batch without events or with recording chunks, or after the general path
 * opened the visit for the run's first batch) when its first batch is reached (`of`). A group with an import (a batch
 * naming its session) reserves batch by batch: a session found by its id may be another key's.
 */
export class Reservations {
  private readonly made = new Map<number, Reservation | null>()
  private readonly keys: string[]

  /** `enabled` false: every batch reserves on its own (a group written with a savepoint per batch). */
  constructor(private readonly jobs: readonly WriteJob[], enabled: boolean) {
    this.keys = enabled && !jobs.some((j) => j.seed.id !== undefined) ? jobs.map((j) => visitKey(j.projectId, j.seed.sessionKey)) : []
  }

  /**
   * Reserves the first run of every visit of the group, in one statement. Where writers lock rows (PostgreSQL), every
   * visit's row is locked first, in key order: the statement skips visits that the general path writes later (new,
   * expired, a start moved back, a first batch without events), and a writer that locked a later key before them
   * could deadlock with another process's group.
   */
  async reserveFirst(trx: Db): Promise<void> {
    const firsts = new Map<string, number>()
    this.keys.forEach((key, index) => { if (!firsts.has(key)) firsts.set(key, index) })
    if (firsts.size > 1 && locksRows(trx)) await lockInKeyOrder(trx, [...firsts.values()].map((index) => this.jobs[index] as WriteJob))
    const runs = [...firsts.values()].map((index) => this.runFrom(index)).filter((run) => run.length > 0)
    // One batch alone is reserveOne's statement: no shape built again for it.
    if (runs.length > 1 || (runs[0]?.length ?? 0) > 1) await this.reserve(trx, runs)
  }

  /**
   * The batch's reservation: its seq range on its live visit (the visit's row is one object for the run, whose terms
   * each batch's writing updates for the next: addTerms), or null when no live visit took its run (the general path's
   * case: the run's next batch then starts a run of its own). Undefined: the batch reserves on its own (reserveOne).
   */
  async of(trx: Db, index: number): Promise<Reservation | null | undefined> {
    if (!this.made.has(index)) {
      const run = this.runFrom(index)
      if (run.length > 1) await this.reserve(trx, [run])
    }
    return this.made.get(index)
  }

  /**
   * The batches of a run from `index`: it and the visit's next ones with events, up to one without, and up to one with
   * recording chunks included (appendChunks writes the visit's recording term from its stored row, which the run's row
   * would not know of).
   */
  private runFrom(index: number): number[] {
    const key = this.keys[index]
    if (key === undefined || (this.jobs[index]?.events.length ?? 0) === 0) return []
    const run = [index]
    for (let j = index + 1; j < this.keys.length && this.jobs[run.at(-1) ?? index]?.recording === undefined; j++) {
      if (this.keys[j] !== key) continue
      if ((this.jobs[j]?.events.length ?? 0) === 0) break
      run.push(j)
    }
    return run
  }

  private async reserve(trx: Db, runs: readonly (readonly number[])[]): Promise<void> {
    const batchesOf = (run: readonly number[]) => run.map((index) => this.jobs[index] as WriteJob)
    for (let i = 0; i < runs.length; i += RESERVE_CHUNK) {
      const chunk = runs.slice(i, i + RESERVE_CHUNK)
      const rows = new Map<string, LiveRow>()
      for (const row of await reserveRows(trx, chunk.map(batchesOf))) rows.set(visitKey(row.project_id, row.session_key), row)
      for (const run of chunk) {
        const [first = 0] = run
        const row = rows.get(this.keys[first] ?? '')
        if (!row) {
          this.made.set(first, null)
          continue
        }
        let base = row.next_seq - run.reduce((n, index) => n + (this.jobs[index]?.events.length ?? 0), 0)
        for (const index of run) {
          this.made.set(index, { row, base })
          base += this.jobs[index]?.events.length ?? 0
        }
      }
    }
  }
}

/** A batch's reservation on its live visit: the visit's row after it, and the first seq of the batch's range. */
export interface Reservation {
  row: LiveRow
  base: number
}

/** One reservation statement, a row for each run of a visit's batches; the rows of the visits that took them. */
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

/** Locks the visits' session rows (those that exist), in the order of their keys, as the writer sorts a group. */
async function lockInKeyOrder(trx: Db, jobs: readonly WriteJob[]): Promise<void> {
  const byProject = new Map<string, string[]>()
  for (const { projectId, seed } of jobs) byProject.set(projectId, [...(byProject.get(projectId) ?? []), seed.sessionKey])
  await trx.selectFrom('sessions').select('id')
    .where((eb) => eb.or([...byProject].map(([projectId, keys]) => eb.and([eb('project_id', '=', projectId), eb('session_key', 'in', keys)]))))
    .orderBy('project_id').orderBy('session_key').forUpdate().execute()
}

export const keyConflict = (seed: SessionSeed, owner: string): AppError =>
  new AppError(409, 'invalid_body', `sessionKey "${seed.sessionKey}" already belongs to session ${owner}, not ${seed.id ?? ''}`)

