import { sql } from 'kysely'
import { bitOf, bitsWith, chunkOf } from '../db/bits.ts'
import type { Db } from '../database.ts'
import { runReused } from '../db/reuse.ts'
import { asBits, bitsAndNot, bitsCount, bitsOr, chunkParam } from '../db/sql.ts'

interface Delta {
  projectId: string
  /** '' for session_days (every visit), else the session_terms term counted in term_days. */
  term: string
  day: number
  delta: number
}

/** A project's recording_usage changes. */
interface RecordingDelta { bytes: number; evictedBytes: number; evictedVisits: number }

/** A term_bits row's changes: each visit number's last word, whether it has the term (true) or not. */
interface BitsDelta {
  projectId: string
  term: string
  chunk: number
  nums: Map<number, boolean>
}

/**
 * Changes to the per-day counters — `session_days` (visits per start day) and `term_days` (visits with a term
 * per start day) — and to the term bitmaps (`term_bits`), gathered during a transaction and written once at its end,
 * in (table, project, term, day or chunk) order. Writing them last and sorted means every transaction takes these hot
 * rows after its session rows and in the same order, so concurrent PostgreSQL writers never wait on each other in a cycle.
 */
export class DayDeltas {
  readonly #deltas = new Map<string, Delta>()
  readonly #bits = new Map<string, BitsDelta>()
  readonly #recording = new Map<string, RecordingDelta>()

  /**
   * A project's recording bytes grow or shrink (`recording_usage`, owned by src/visits), and what eviction took: a
   * counter every chunk write touches, so it is written last like the day counters.
   */
  addRecording(projectId: string, bytes: number, evictedBytes = 0, evictedVisits = 0): void {
    const entry = this.#recording.get(projectId) ?? { bytes: 0, evictedBytes: 0, evictedVisits: 0 }
    this.#recording.set(projectId, { bytes: entry.bytes + bytes, evictedBytes: entry.evictedBytes + evictedBytes, evictedVisits: entry.evictedVisits + evictedVisits })
  }

  /** A visit that starts on `day` comes (1) or goes (-1). */
  add(projectId: string, day: number, delta: number): void {
    this.addTerm(projectId, '', day, delta)
  }

  /** A visit that starts on `day` gains (1) or loses (-1) a term. */
  addTerm(projectId: string, term: string, day: number, delta: number): void {
    const key = `${projectId}\u0000${term}\u0000${day}`
    const entry = this.#deltas.get(key)
    if (entry) entry.delta += delta
    else this.#deltas.set(key, { projectId, term, day, delta })
  }

  /** The visit numbered `num` gains (true) or loses (false) a term in term_bits; the last word on a number stands. */
  markTerm(projectId: string, term: string, num: number, has: boolean): void {
    // A visit without its number would set another's bit (0) and miscount every total with the term: refused.
    if (!Number.isSafeInteger(num) || num < 0) throw new Error(`visit number ${String(num)} is not a number a visit is stored with`)
    const chunk = chunkOf(num)
    const key = `${projectId}\u0000${term}\u0000${chunk}`
    let entry = this.#bits.get(key)
    if (!entry) this.#bits.set(key, (entry = { projectId, term, chunk, nums: new Map() }))
    entry.nums.set(num, has)
  }

  /** Adds these changes to `other` (a batch's changes join its transaction's once it succeeds). */
  mergeInto(other: DayDeltas): void {
    for (const { projectId, term, day, delta } of this.#deltas.values()) other.addTerm(projectId, term, day, delta)
    for (const { projectId, term, nums } of this.#bits.values()) for (const [num, has] of nums) other.markTerm(projectId, term, num, has)
    for (const [projectId, r] of this.#recording) other.addRecording(projectId, r.bytes, r.evictedBytes, r.evictedVisits)
  }

  /**
   * Writes the changes in the order above, session_days before term_days: the counters that grow in a row with one
   * upsert (a few statements for many rows), each that shrinks (a late event moved a visit's start, a visit was
   * deleted: rare) on its own, where it comes.
   */
  async apply(db: Db): Promise<void> {
    // Sorted by number, not as text: day numbers before 1970 are negative.
    const entries = [...this.#deltas.values()].sort((a, b) => compare(a.projectId, b.projectId) || compare(a.term, b.term) || a.day - b.day)
    for (const days of [entries.filter((e) => e.term === ''), entries.filter((e) => e.term !== '')]) {
      let grown: Delta[] = []
      for (const entry of days) {
        if (entry.delta > 0) grown.push(entry)
        if (entry.delta >= 0) continue
        await addDays(db, grown)
        grown = []
        await shrinkDay(db, entry)
      }
      await addDays(db, grown)
    }
    this.#deltas.clear()
    await applyBits(db, [...this.#bits.values()].sort((a, b) => compare(a.projectId, b.projectId) || compare(a.term, b.term) || a.chunk - b.chunk))
    this.#bits.clear()
    for (const [projectId, r] of [...this.#recording].sort(([a], [b]) => compare(a, b))) {
      if (r.bytes === 0 && r.evictedBytes === 0 && r.evictedVisits === 0) continue
      await db.insertInto('recording_usage')
        .values({ project_id: projectId, bytes: r.bytes, evicted_bytes: r.evictedBytes, evicted_visits: r.evictedVisits })
        .onConflict((oc) => oc.column('project_id').doUpdateSet((eb) => ({
          bytes: eb('recording_usage.bytes', '+', eb.ref('excluded.bytes')),
          evicted_bytes: eb('recording_usage.evicted_bytes', '+', eb.ref('excluded.evicted_bytes')),
          evicted_visits: eb('recording_usage.evicted_visits', '+', eb.ref('excluded.evicted_visits')),
        }))).execute()
    }
    this.#recording.clear()
  }
}

/**
 * Writes term_bits changes in the given order: the rows that only gain bits with one upsert (OR) for many, each that
 * loses some (a visit deleted: rare) on its own, where it comes, and removed once it holds none.
 */
async function applyBits(db: Db, entries: readonly BitsDelta[]): Promise<void> {
  let grown: { entry: BitsDelta; bits: Buffer }[] = []
  for (const entry of entries) {
    const set = [...entry.nums].filter(([, has]) => has).map(([num]) => bitOf(num))
    const cleared = [...entry.nums].filter(([, has]) => !has).map(([num]) => bitOf(num))
    if (cleared.length > 0) {
      await orBits(db, grown)
      grown = []
      await clearBits(db, entry, bitsWith(cleared))
    }
    if (set.length > 0) grown.push({ entry, bits: bitsWith(set) })
  }
  await orBits(db, grown)
}

/** Sets bits in term_bits rows, creating the rows that are missing. */
async function orBits(db: Db, rows: readonly { entry: BitsDelta; bits: Buffer }[]): Promise<void> {
  for (let i = 0; i < rows.length; i += UPSERT_CHUNK) {
    const chunk = rows.slice(i, i + UPSERT_CHUNK)
    const params = chunk.flatMap(({ entry, bits }) => [entry.projectId, entry.term, entry.chunk, chunkParam(db, bits)])
    await runReused(db, `add term bits ${chunk.length}`, params, () => db.insertInto('term_bits')
      .values(chunk.map(({ entry, bits }) => ({ project_id: entry.projectId, term: entry.term, chunk: entry.chunk, bits: asBits(db, chunkParam(db, bits)) })))
      .onConflict((oc) => oc.columns(['project_id', 'term', 'chunk']).doUpdateSet({ bits: bitsOr(db, sql.ref('term_bits.bits'), sql.ref('excluded.bits')) })))
  }
}

/** Clears bits of one term_bits row; a row left with none is removed. */
async function clearBits(db: Db, { projectId, term, chunk }: BitsDelta, bits: Buffer): Promise<void> {
  await db.updateTable('term_bits').set({ bits: bitsAndNot(db, sql.ref('bits'), asBits(db, chunkParam(db, bits))) })
    .where('project_id', '=', projectId).where('term', '=', term).where('chunk', '=', chunk).execute()
  await db.deleteFrom('term_bits').where('project_id', '=', projectId).where('term', '=', term).where('chunk', '=', chunk)
    .where(bitsCount(db, [sql.ref('bits')]), '=', 0).execute()
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Rows per upsert: each statement is built once per row count (runReused), and a group's day counters are a visit's
 * terms on a day or two, rarely more than this.
 */
const UPSERT_CHUNK = 50

/** Adds to day counters of one table (session_days, or term_days for terms), creating the rows that are missing, in the given order. */
async function addDays(db: Db, grown: readonly Delta[]): Promise<void> {
  for (let i = 0; i < grown.length; i += UPSERT_CHUNK) {
    const chunk = grown.slice(i, i + UPSERT_CHUNK)
    if (chunk[0]?.term === '') {
      const rows = chunk.map((e) => ({ project_id: e.projectId, day: e.day, sessions: e.delta }))
      await runReused(db, `add session days ${rows.length}`, rows.flatMap((r) => [r.project_id, r.day, r.sessions]), () => db
        .insertInto('session_days').values(rows)
        .onConflict((oc) => oc.columns(['project_id', 'day']).doUpdateSet((eb) => ({ sessions: eb('session_days.sessions', '+', eb.ref('excluded.sessions')) }))))
    } else {
      const rows = chunk.map((e) => ({ project_id: e.projectId, term: e.term, day: e.day, sessions: e.delta }))
      await runReused(db, `add term days ${rows.length}`, rows.flatMap((r) => [r.project_id, r.term, r.day, r.sessions]), () => db
        .insertInto('term_days').values(rows)
        .onConflict((oc) => oc.columns(['project_id', 'term', 'day']).doUpdateSet((eb) => ({ sessions: eb('term_days.sessions', '+', eb.ref('excluded.sessions')) }))))
    }
  }
}

/** Takes from one day counter (`delta` is negative); a row that reaches zero is removed. */
async function shrinkDay(db: Db, { projectId, term, day, delta }: Delta): Promise<void> {
  if (term === '') {
    await db.updateTable('session_days').set((eb) => ({ sessions: eb('sessions', '+', delta) }))
      .where('project_id', '=', projectId).where('day', '=', day).execute()
    await db.deleteFrom('session_days')
      .where('project_id', '=', projectId).where('day', '=', day).where('sessions', '<=', 0).execute()
    return
  }
  await db.updateTable('term_days').set((eb) => ({ sessions: eb('sessions', '+', delta) }))
    .where('project_id', '=', projectId).where('term', '=', term).where('day', '=', day).execute()
  await db.deleteFrom('term_days')
    .where('project_id', '=', projectId).where('term', '=', term).where('day', '=', day).where('sessions', '<=', 0).execute()
}
