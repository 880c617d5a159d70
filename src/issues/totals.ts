/** The issue totals (issue_totals, issue_release_totals): hot counters of the issue writes in store.ts. */
import type { Db } from '../database.ts'
import type { IssueStatus } from './tables.ts'

/** Entries in key order: the order every writer locks issue rows in, so concurrent ones cannot deadlock on them. */
export const byKey = <T>(map: ReadonlyMap<string, T>): [string, T][] => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

/**
 * Changes to the per-status and per-release issue totals (issue_totals, issue_release_totals), written once after the
 * group's issue rows: hot rows every writer takes last, in key order. Taken where an issue was created, in the middle
 * of a group, they had two writers creating two new issues each wait for the other's.
 */
export class IssueTotals {
  readonly #totals = new Map<string, { projectId: string; status: IssueStatus; delta: number }>()
  readonly #releases = new Map<string, { projectId: string; release: string; environment: string; delta: number }>()

  add(projectId: string, status: IssueStatus, delta: number): void {
    const key = `${projectId}\u0000${status}`
    const entry = this.#totals.get(key)
    if (entry) entry.delta += delta
    else this.#totals.set(key, { projectId, status, delta })
  }

  addRelease(projectId: string, release: string, environment: string, delta: number): void {
    const key = `${projectId}\u0000${release}\u0000${environment}`
    const entry = this.#releases.get(key)
    if (entry) entry.delta += delta
    else this.#releases.set(key, { projectId, release, environment, delta })
  }

  async apply(trx: Db): Promise<void> {
    for (const [, t] of byKey(this.#totals)) if (t.delta !== 0) await addTotal(trx, t.projectId, t.status, t.delta)
    for (const [, r] of byKey(this.#releases)) if (r.delta !== 0) await addReleaseTotal(trx, r.projectId, r.release, r.environment, r.delta)
  }
}

/** Moves a project's count of issues in `status` by `delta`. */
export async function addTotal(trx: Db, projectId: string, status: IssueStatus, delta: number): Promise<void> {
  await trx.insertInto('issue_totals').values({ project_id: projectId, status, issues: delta })
    .onConflict((oc) => oc.columns(['project_id', 'status']).doUpdateSet((eb) => ({ issues: eb('issue_totals.issues', '+', eb.ref('excluded.issues')) })))
    .execute()
}

/** Moves a release's count of new issues (issue_release_totals) by `delta`. */
export async function addReleaseTotal(trx: Db, projectId: string, release: string, environment: string, delta: number): Promise<void> {
  await trx.insertInto('issue_release_totals').values({ project_id: projectId, release, environment, issues: delta })
    .onConflict((oc) => oc.columns(['project_id', 'release', 'environment'])
      .doUpdateSet((eb) => ({ issues: eb('issue_release_totals.issues', '+', eb.ref('excluded.issues')) })))
    .execute()
}
