/*
 * The named operations that change release health (all through count.ts): Sentry session items, our SDK's visits
 * as a step of the visit's write, and their removal by retention, erasure and visit deletion.
 */
import type { Kysely } from 'kysely'
import type { Database, Db } from '../database.ts'
import { retrying } from '../db/errors.ts'
import { canMatch } from '../db/sql.ts'
import { deleteProjectRows } from '../db/rows.ts'
import { dayOf } from '../util/time.ts'
import { removeUnits, replaceUnits, storedUnits, type Unit } from './count.ts'
import { countsOf, outcomeOf, worse, type Outcome } from './status.ts'

/**
 * Counts a Sentry envelope's session units: a session replaces the stored state of its sid unless that one is later
 * (an update that arrives late changes nothing), an aggregate bucket already stored is a resend and adds nothing, and
 * a unit whose last activity is past retention is not counted. Returns how many units it counted or updated.
 */
export async function countSentryUnits(db: Db, projectId: string, units: readonly Unit[], cutoff: number): Promise<number> {
  const live = units.filter((u) => u.seenAt >= cutoff && canMatch(u.unit))
  if (live.length === 0) return 0
  return inTransaction(db, async (trx) => {
    const old = await storedUnits(trx, projectId, live.map((u) => u.unit))
    const next = new Map<string, Unit>()
    for (const u of live) {
      const before = next.get(u.unit) ?? old.get(u.unit)
      if (before && (u.source === 'aggregate' || before.seenAt > u.seenAt)) continue
      next.set(u.unit, u)
    }
    await replaceUnits(trx, projectId, old, [...next.values()])
    return next.size
  })
}

/** Runs `fn` in a transaction of its own (run again after a deadlock), or in the one `db` already is. */
const inTransaction = <T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> =>
  (db.isTransaction ? fn(db) : retrying(() => db.transaction().execute(fn)))

const visitUnit = (sessionId: string): string => `v:${sessionId}`

/**
 * What a group of batches did to its visits' health: each visit's worst outcome in the group. A visit made only from
 * Sentry events (its key starts `sentry-`) is left out: those SDKs send their own sessions.
 */
export class VisitOutcomes {
  private readonly visits = new Map<string, { projectId: string; sessionId: string; outcome: Outcome }>()

  /**
   * Notes a stored batch. A healthy batch without a release changes no count (our SDK sends the release with every
   * batch), so the group does not look its visit up: a project without releases pays nothing.
   */
  add(projectId: string, sessionId: string, seed: { sessionKey: string; release: string | null }, outcome: Outcome): void {
    if (seed.sessionKey.startsWith('sentry-') || (seed.release === null && outcome === 'healthy')) return
    const key = `${projectId}\u0000${sessionId}`
    const seen = this.visits.get(key)
    this.visits.set(key, { projectId, sessionId, outcome: seen ? worse(seen.outcome, outcome) : outcome })
  }

  /**
   * Counts the group's visits as sessions of their release, a step of the visit's write (after its session rows are
   * up to date): a visit is one unit, with the release, environment, user and start its row now has and the worst
   * outcome it ever had, so a visit that turns from ok to crashed moves between the counts. A visit without a release
   * counts nowhere.
   */
  async apply(trx: Db): Promise<void> {
    const byProject = new Map<string, Map<string, Outcome>>()
    for (const v of this.visits.values()) {
      let m = byProject.get(v.projectId)
      if (!m) byProject.set(v.projectId, (m = new Map<string, Outcome>()))
      m.set(v.sessionId, v.outcome)
    }
    for (const [projectId, outcomes] of [...byProject].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const rows = await trx.selectFrom('sessions').select(['id', 'release', 'environment', 'user_id', 'started_at', 'last_seen_at'])
        .where('project_id', '=', projectId).where('id', 'in', [...outcomes.keys()]).where('release', 'is not', null).execute()
      if (rows.length === 0) continue
      const old = await storedUnits(trx, projectId, rows.map((r) => visitUnit(r.id)))
      const next: Unit[] = []
      for (const r of rows) {
        const before = old.get(visitUnit(r.id))
        const outcome = worse(outcomes.get(r.id) ?? 'healthy', before ? outcomeOf(before) : 'healthy')
        next.push({
          unit: visitUnit(r.id), source: 'visit', release: r.release ?? '', environment: r.environment ?? '', userKey: r.user_id,
          day: dayOf(r.started_at), startedAt: r.started_at, seenAt: r.last_seen_at, ...countsOf(outcome),
        })
      }
      await replaceUnits(trx, projectId, old, next, next)
    }
  }
}

/** Takes deleted visits out of their releases' counts: a step of deleting visits (retention, erasure, expired reuse). */
export async function forgetVisitUnits(trx: Db, projectId: string, sessionIds: readonly string[]): Promise<void> {
  if (sessionIds.length > 0) await removeUnits(trx, projectId, sessionIds.map(visitUnit))
}

/**
 * Deletes up to `limit` of a project's Sentry session units whose last activity is before `cutoff`, with their share
 * of the counters (visits' units go with their visits). Returns how many it deleted: 0 when none is left.
 */
export async function expireUnits(db: Kysely<Database>, projectId: string, cutoff: number, limit: number): Promise<number> {
  const rows = await db.selectFrom('release_units').select('unit').where('project_id', '=', projectId)
    .where('source', 'in', ['session', 'aggregate']).where('seen_at', '<', cutoff).limit(limit).execute()
  if (rows.length === 0) return 0
  return inTransaction(db, (trx) => removeUnits(trx, projectId, rows.map((r) => r.unit)))
}

/** Erases a user's Sentry sessions (by `did`) from release health, with their share of the counters; returns how many. */
export async function eraseUserUnits(db: Kysely<Database>, projectId: string, userKey: string): Promise<number> {
  if (!canMatch(userKey)) return 0
  return inTransaction(db, async (trx) => {
    const rows = await trx.selectFrom('release_units').select('unit').where('project_id', '=', projectId).where('user_key', '=', userKey).execute()
    return removeUnits(trx, projectId, rows.map((r) => r.unit))
  })
}

/** Deletes every release-health row of a project being deleted (src/projects/delete.ts): units, counters and users. */
export const forgetProject = (trx: Db, projectId: string): Promise<void> =>
  deleteProjectRows(trx, ['release_units', 'release_users', 'release_days', 'releases'], projectId)
