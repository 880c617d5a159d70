import type { Db } from '../db/database.ts'

/**
 * Changes to `session_days` gathered during a transaction and written once at its end, in
 * (project, day) order. Writing them last and sorted means every transaction takes the hot
 * per-day rows after its session rows and in the same order, so concurrent PostgreSQL writers
 * never wait on each other in a cycle.
 */
export class DayDeltas {
  readonly #deltas = new Map<string, { projectId: string; day: number; delta: number }>()

  add(projectId: string, day: number, delta: number): void {
    const key = `${projectId}\u0000${day}`
    const entry = this.#deltas.get(key)
    if (entry) entry.delta += delta
    else this.#deltas.set(key, { projectId, day, delta })
  }

  /** Adds these changes to `other` (a batch's changes join its transaction's once it succeeds). */
  mergeInto(other: DayDeltas): void {
    for (const { projectId, day, delta } of this.#deltas.values()) other.add(projectId, day, delta)
  }

  async apply(db: Db): Promise<void> {
    // Sorted by number, not as text: day numbers before 1970 are negative.
    const entries = [...this.#deltas.values()]
      .sort((a, b) => (a.projectId < b.projectId ? -1 : a.projectId > b.projectId ? 1 : a.day - b.day))
    for (const entry of entries) {
      if (entry.delta !== 0) await adjustDay(db, entry.projectId, entry.day, entry.delta)
    }
    this.#deltas.clear()
  }
}

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
