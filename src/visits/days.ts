import type { Db } from '../db/database.ts'

interface Delta {
  projectId: string
  /** '' for session_days (every visit), else the session_terms term counted in term_days. */
  term: string
  day: number
  delta: number
}

/**
 * Changes to the per-day counters — `session_days` (visits per start day) and `term_days` (visits with a term
 * per start day) — gathered during a transaction and written once at its end, in (project, term, day) order.
 * Writing them last and sorted means every transaction takes the hot per-day rows after its session rows and in
 * the same order, so concurrent PostgreSQL writers never wait on each other in a cycle.
 */
export class DayDeltas {
  readonly #deltas = new Map<string, Delta>()

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

  /** Adds these changes to `other` (a batch's changes join its transaction's once it succeeds). */
  mergeInto(other: DayDeltas): void {
    for (const { projectId, term, day, delta } of this.#deltas.values()) other.addTerm(projectId, term, day, delta)
  }

  async apply(db: Db): Promise<void> {
    // Sorted by number, not as text: day numbers before 1970 are negative.
    const entries = [...this.#deltas.values()].sort((a, b) => compare(a.projectId, b.projectId) || compare(a.term, b.term) || a.day - b.day)
    for (const entry of entries) {
      if (entry.delta === 0) continue
      if (entry.term === '') await adjustDay(db, entry.projectId, entry.day, entry.delta)
      else await adjustTermDay(db, entry)
    }
    this.#deltas.clear()
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Adds `delta` to one day's session counter; rows that reach zero are removed. */
async function adjustDay(db: Db, projectId: string, day: number, delta: number): Promise<void> {
  if (delta > 0) {
    await db.insertInto('session_days').values({ project_id: projectId, day, sessions: delta })
      .onConflict((oc) => oc.columns(['project_id', 'day'])
        .doUpdateSet((eb) => ({ sessions: eb('session_days.sessions', '+', delta) })))
      .execute()
    return
  }
  await db.updateTable('session_days').set((eb) => ({ sessions: eb('sessions', '+', delta) }))
    .where('project_id', '=', projectId).where('day', '=', day).execute()
  await db.deleteFrom('session_days')
    .where('project_id', '=', projectId).where('day', '=', day).where('sessions', '<=', 0).execute()
}

/** The same for one term's day counter. */
async function adjustTermDay(db: Db, { projectId, term, day, delta }: Delta): Promise<void> {
  if (delta > 0) {
    await db.insertInto('term_days').values({ project_id: projectId, term, day, sessions: delta })
      .onConflict((oc) => oc.columns(['project_id', 'term', 'day'])
        .doUpdateSet((eb) => ({ sessions: eb('term_days.sessions', '+', delta) })))
      .execute()
    return
  }
  await db.updateTable('term_days').set((eb) => ({ sessions: eb('sessions', '+', delta) }))
    .where('project_id', '=', projectId).where('term', '=', term).where('day', '=', day).execute()
  await db.deleteFrom('term_days')
    .where('project_id', '=', projectId).where('term', '=', term).where('day', '=', day).where('sessions', '<=', 0).execute()
}
