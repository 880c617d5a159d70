import { sql, type RawBuilder } from 'kysely'
import { bitOf, bitsWith, chunkOf } from '../db/bits.ts'
import type { Db } from '../database.ts'
import { runReused } from '../db/reuse.ts'
import { asBits, bitsAndNot, bitsCount, bitsOr, bitsType, chunkParam, rowsOfArrays, takesArrays } from '../db/sql.ts'
import { addRows, inSizes, type Upsert } from '../db/counters.ts'

/** A visit as one string, for maps: its project and its id (or its session key, where that names it). */
export const visitKey = (projectId: string, sessionId: string): string => `${projectId}\u0000${sessionId}`

interface Delta {
  projectId: string
  /** '' for session_days (every visit), else the session_terms term counted in term_days. */
  term: string
  day: number
  delta: number
}

/** A visit's terms as its transaction leaves them: all it has (its row's `terms` list), and the session_terms rows it adds. */
interface VisitTerms {
  projectId: string
  sessionId: string
  terms: readonly string[]
  added: Set<string>
  /** Deleted in the transaction (an expired visit a later batch replaced): nothing of it is written. */
  gone: boolean
  /** Deleted in the transaction, then perhaps made again under its id (import): it replaces the parent's entry. */
  replaces: boolean
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
 * Changes to the search index gathered during a transaction and written once at its end: the terms visits gain
 * (`session_terms` and each row's `terms` list), then the per-day counters — `session_days` (visits per start day) and
 * `term_days` (visits with a term per start day) — and the term bitmaps (`term_bits`), in (table, project, term, day or
 * chunk) order. Writing the counters last and sorted means every transaction takes these hot rows after its session rows
 * and in the same order, so concurrent PostgreSQL writers never wait on each other in a cycle.
 *
 * A visit's terms are written once for the whole group of batches, not once per batch: a batch's new web vital
 * rating or click would otherwise cost two statements (two round trips on PostgreSQL) for a row of a few bytes.
 */
export class DayDeltas {
  readonly #deltas = new Map<string, Delta>()
  readonly #bits = new Map<string, BitsDelta>()
  readonly #recording = new Map<string, RecordingDelta>()
  readonly #visits = new Map<string, VisitTerms>()

  /** `parent`: the transaction's changes, which a batch's (in its savepoint) join once it succeeds; it sees their visits' terms. */
  constructor(private readonly parent?: DayDeltas) {}

  /** The terms of a visit whose terms this transaction changed, as it left them; undefined when it did not (its row's stand). */
  visitTerms(projectId: string, sessionId: string): readonly string[] | undefined {
    return this.#visits.get(visitKey(projectId, sessionId))?.terms ?? this.parent?.visitTerms(projectId, sessionId)
  }

  /** A visit now has `terms`, of which `added` are new to it: its session_terms rows and its row's list, written by apply. */
  setVisitTerms(projectId: string, sessionId: string, terms: readonly string[], added: Iterable<string>): void {
    const key = visitKey(projectId, sessionId)
    const entry = this.#visits.get(key)
    if (entry) {
      entry.terms = terms
      entry.gone = false
      for (const t of added) entry.added.add(t)
    } else this.#visits.set(key, { projectId, sessionId, terms, added: new Set(added), gone: false, replaces: false })
  }

  /** A visit deleted in this transaction: the terms it gained in it are not written. */
  forgetVisit(projectId: string, sessionId: string): void {
    this.#visits.set(visitKey(projectId, sessionId), { projectId, sessionId, terms: [], added: new Set(), gone: true, replaces: true })
  }

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
    for (const [key, v] of this.#visits) {
      if (v.replaces) other.#visits.set(key, { ...v, added: new Set(v.added) })
      else other.setVisitTerms(v.projectId, v.sessionId, v.terms, v.added)
    }
  }

  /**
   * Writes the changes in the order above, session_days before term_days, then `counters` (the transaction's other
   * hot counters, in an order every writer keeps), then term_bits: when every counter grows and every bit is set, all
   * with one addRows (one statement on PostgreSQL); else a visit's counters that grow in a row with one upsert, each
   * that shrinks (a late event moved a visit's start, a visit was deleted: rare) on its own, where it comes, then
   * `counters` and term_bits.
   */
  async apply(db: Db, counters: readonly Upsert[] = []): Promise<void> {
    await writeVisitTerms(db, [...this.#visits.values()].filter((v) => !v.gone))
    this.#visits.clear()
    // Sorted by number, not as text: day numbers before 1970 are negative.
    const entries = [...this.#deltas.values()].sort((a, b) => compare(a.projectId, b.projectId) || compare(a.term, b.term) || a.day - b.day)
    this.#deltas.clear()
    const bits = [...this.#bits.values()].sort((a, b) => compare(a.projectId, b.projectId) || compare(a.term, b.term) || a.chunk - b.chunk)
    this.#bits.clear()
    const tables = [{ ...SESSION_DAYS, deltas: entries.filter((e) => e.term === '') }, { ...TERM_DAYS, deltas: entries.filter((e) => e.term !== '') }]
    if (entries.every((e) => e.delta >= 0) && bits.every((b) => [...b.nums.values()].every(Boolean))) {
      // Ingest's case: every counter grows and every bit is set, and with the other hot counters given (a page's) they
      // are one statement on PostgreSQL, which is one round trip while this transaction holds rows other writers wait for.
      await addRows(db, [...tables.map((t) => ({ ...t, rows: rowsOf(t.deltas) })), ...counters, setBits(db, bits)])
    } else {
      for (const t of tables) {
        let grown: Delta[] = []
        for (const entry of t.deltas) {
          if (entry.delta > 0) grown.push(entry)
          if (entry.delta >= 0) continue
          await addRows(db, [{ ...t, rows: rowsOf(grown) }])
          grown = []
          await shrinkDay(db, entry)
        }
        await addRows(db, [{ ...t, rows: rowsOf(grown) }])
      }
      await addRows(db, counters)
      await applyBits(db, bits)
    }
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
 * Writes visits' new session_terms rows and their rows' `terms` lists, in (project, term, visit) and (project, visit)
 * order. On PostgreSQL in one statement, a data-modifying WITH query with a column's values per parameter: one round
 * trip, whatever the visits. On SQLite, which runs in process, statements of a few sizes (inSizes).
 */
async function writeVisitTerms(db: Db, visits: readonly VisitTerms[]): Promise<void> {
  if (visits.length === 0) return
  const added = visits.flatMap((v) => [...v.added].map((t) => [v.projectId, t, v.sessionId]))
    .sort((a, b) => compare(a[0] ?? '', b[0] ?? '') || compare(a[1] ?? '', b[1] ?? '') || compare(a[2] ?? '', b[2] ?? ''))
  const lists = visits.map((v) => [v.projectId, v.sessionId, JSON.stringify(v.terms)])
    .sort((a, b) => compare(a[0] ?? '', b[0] ?? '') || compare(a[1] ?? '', b[1] ?? ''))
  const insert = (rows: RawBuilder<unknown>) => sql`insert into session_terms (project_id, term, session_id) ${rows}
    on conflict (project_id, term, session_id) do nothing`
  const update = (rows: RawBuilder<unknown>) => sql`update sessions set terms = visit_terms.terms from ${rows}
    where sessions.project_id = visit_terms.project_id and sessions.id = visit_terms.id`
  if (takesArrays(db)) {
    const params = [added, added, added, lists, lists, lists].map((rows, k) => rows.map((r) => r[k % 3]))
    const columns = (from: number) => params.slice(from, from + 3).map((values) => [values, 'text'] as const)
    const statement = sql`with t as (${insert(rowsOfArrays(columns(0)))})
      ${update(sql`${rowsOfArrays(columns(3))} as visit_terms (project_id, id, terms)`)}`
    await runReused(db, 'write visit terms as arrays', params, () => ({ compile: () => statement.compile(db) }))
    return
  }
  for (const [rows, write] of [[added, 'insert'], [lists, 'update']] as const) {
    for (const chunk of inSizes(rows)) {
      const values = sql`values ${sql.join(chunk.map((r) => sql`(${sql.join(r)})`))}`
      await runReused(db, `${write} visit terms ${chunk.length}`, chunk.flat(), () => ({
        compile: () => (write === 'insert' ? insert(values) : sql`with visit_terms (project_id, id, terms) as (${values}) ${update(sql`visit_terms`)}`).compile(db),
      }))
    }
  }
}

/**
 * Writes term_bits changes in the given order: the rows that only gain bits with one upsert for many (setBits), each
 * that loses some (a visit deleted: rare) on its own, where it comes, and removed once it holds none.
 */
async function applyBits(db: Db, entries: readonly BitsDelta[]): Promise<void> {
  let grown: BitsDelta[] = []
  for (const entry of entries) {
    const cleared = [...entry.nums].filter(([, has]) => !has).map(([num]) => bitOf(num))
    if (cleared.length > 0) {
      await addRows(db, [setBits(db, grown)])
      grown = []
      await clearBits(db, entry, bitsWith(cleared))
    }
    grown.push(entry)
  }
  await addRows(db, [setBits(db, grown)])
}

/** The bits that entries set, as addRows's OR into their term_bits rows (created when missing). Entries that set none add no row. */
function setBits(db: Db, entries: readonly BitsDelta[]): Upsert {
  const rows = entries.flatMap(({ projectId, term, chunk, nums }) => {
    const set = [...nums].filter(([, has]) => has).map(([num]) => bitOf(num))
    return set.length === 0 ? [] : [[projectId, term, chunk, chunkParam(db, bitsWith(set))]]
  })
  return { ...TERM_BITS, counters: [['bits', bitsType(db), (stored, added) => bitsOr(db, stored, added)]], rows }
}

/** Clears bits of one term_bits row; a row left with none is removed. */
async function clearBits(db: Db, { projectId, term, chunk }: BitsDelta, bits: Buffer): Promise<void> {
  await db.updateTable('term_bits').set({ bits: bitsAndNot(db, sql.ref('bits'), asBits(db, chunkParam(db, bits))) })
    .where('project_id', '=', projectId).where('term', '=', term).where('chunk', '=', chunk).execute()
  await db.deleteFrom('term_bits').where('project_id', '=', projectId).where('term', '=', term).where('chunk', '=', chunk)
    .where(bitsCount(db, [sql.ref('bits')]), '=', 0).execute()
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** A day table's growing counters as addRows's rows: project, term (term_days only), day, visits added. */
const rowsOf = (deltas: readonly Delta[]) => deltas.filter((e) => e.delta > 0).map((e) => [e.projectId, ...(e.term === '' ? [] : [e.term]), e.day, e.delta])

/** session_days, term_days and term_bits (whose counter, `bits`, is the engine's) as addRows writes them. */
const SESSION_DAYS = { table: 'session_days', keys: [['project_id', 'text'], ['day', 'integer']], counters: [['sessions', 'integer']] } as const
const TERM_DAYS = { table: 'term_days', keys: [['project_id', 'text'], ['term', 'text'], ['day', 'integer']], counters: [['sessions', 'integer']] } as const
const TERM_BITS = { table: 'term_bits', keys: [['project_id', 'text'], ['term', 'text'], ['chunk', 'integer']] } as const

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
