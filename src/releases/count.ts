/*
 * The one place release counters change. Every counted thing is a unit (release_units) holding what it added; a
 * change is "these units went, these came", and the counters move by the difference: releases, release_days and
 * release_users (whose rows appearing and disappearing are the exact user counts). Units and counters change in
 * one transaction, so a resend, an update, retention or erasure can neither count twice nor leave a count behind.
 */
import type { Selectable } from 'kysely'
import type { Db } from '../database.ts'
import { byKey } from '../issues/index.ts'
import type { SessionCounts } from './status.ts'
import type { ReleaseUnitTable, UnitSource } from './tables.ts'

/** A counted unit as the store takes it. */
export interface Unit extends SessionCounts {
  unit: string
  source: UnitSource
  release: string
  environment: string
  userKey: string | null
  day: number
  startedAt: number
  seenAt: number
}

export type UnitRow = Selectable<ReleaseUnitTable>

export const unitOf = (r: UnitRow): Unit => ({
  unit: r.unit, source: r.source, release: r.release, environment: r.environment, userKey: r.user_key, day: r.day,
  startedAt: r.started_at, seenAt: r.seen_at, sessions: r.sessions, errored: r.errored, crashed: r.crashed, abnormal: r.abnormal,
})

const rowOf = (projectId: string, u: Unit): ReleaseUnitTable => ({
  project_id: projectId, unit: u.unit, source: u.source, release: u.release, environment: u.environment, user_key: u.userKey,
  day: u.day, started_at: u.startedAt, seen_at: u.seenAt, sessions: u.sessions, errored: u.errored, crashed: u.crashed, abnormal: u.abnormal,
})

/** Whether replacing `a` by `b` changes any counter (its last activity aside). */
export const sameCount = (a: Unit, b: Unit): boolean =>
  a.release === b.release && a.environment === b.environment && a.userKey === b.userKey && a.day === b.day
  && a.sessions === b.sessions && a.errored === b.errored && a.crashed === b.crashed && a.abnormal === b.abnormal

/** Units per statement: 13 parameters each, well under both engines' limits. */
const CHUNK = 200

/** Reads the project's stored units of these names. */
export async function storedUnits(trx: Db, projectId: string, names: readonly string[]): Promise<Map<string, Unit>> {
  const found = new Map<string, Unit>()
  for (let i = 0; i < names.length; i += CHUNK) {
    const rows = await trx.selectFrom('release_units').selectAll().where('project_id', '=', projectId)
      .where('unit', 'in', names.slice(i, i + CHUNK)).execute()
    for (const r of rows) found.set(r.unit, unitOf(r))
  }
  return found
}

/**
 * Replaces units: `next` are the new states (inserted, or replacing the stored one of the same name), `old` what was
 * stored of them; counters move by the difference. `touched` only moves its release's last activity.
 */
export async function replaceUnits(
  trx: Db, projectId: string, old: ReadonlyMap<string, Unit>, next: readonly Unit[], touched: readonly Unit[] = [],
): Promise<void> {
  const removed: Unit[] = []
  const changed = next.filter((u) => {
    const before = old.get(u.unit)
    if (before && sameCount(before, u)) return false
    if (before) removed.push(before)
    return true
  })
  for (let i = 0; i < changed.length; i += CHUNK) {
    await trx.insertInto('release_units').values(changed.slice(i, i + CHUNK).map((u) => rowOf(projectId, u)))
      .onConflict((oc) => oc.columns(['project_id', 'unit']).doUpdateSet((eb) => ({
        release: eb.ref('excluded.release'), environment: eb.ref('excluded.environment'), user_key: eb.ref('excluded.user_key'),
        day: eb.ref('excluded.day'), started_at: eb.ref('excluded.started_at'), seen_at: eb.ref('excluded.seen_at'),
        sessions: eb.ref('excluded.sessions'), errored: eb.ref('excluded.errored'), crashed: eb.ref('excluded.crashed'),
        abnormal: eb.ref('excluded.abnormal'),
      }))).execute()
  }
  await moveCounters(trx, projectId, removed, changed, touched)
}

/** Deletes the units of these names that are stored and takes them out of the counters; returns how many went. */
export async function removeUnits(trx: Db, projectId: string, names: readonly string[]): Promise<number> {
  const gone: Unit[] = []
  for (let i = 0; i < names.length; i += CHUNK) {
    const rows = await trx.deleteFrom('release_units').where('project_id', '=', projectId).where('unit', 'in', names.slice(i, i + CHUNK))
      .returningAll().execute()
    gone.push(...rows.map(unitOf))
  }
  await moveCounters(trx, projectId, gone, [])
  return gone.length
}

interface Delta extends SessionCounts {
  release: string
  environment: string
  users: number
  crashedUsers: number
  first: number | null
  last: number | null
}

const zero = (release: string, environment: string): Delta =>
  ({ release, environment, sessions: 0, errored: 0, crashed: 0, abnormal: 0, users: 0, crashedUsers: 0, first: null, last: null })

function addCounts(into: SessionCounts, u: SessionCounts, sign: number): void {
  into.sessions += sign * u.sessions
  into.errored += sign * u.errored
  into.crashed += sign * u.crashed
  into.abnormal += sign * u.abnormal
}

/** Moves the counters by what `removed` took and `added` brought; `touched` (and `added`) move first and last seen. */
async function moveCounters(trx: Db, projectId: string, removed: readonly Unit[], added: readonly Unit[], touched: readonly Unit[] = []): Promise<void> {
  const releases = new Map<string, Delta>()
  const days = new Map<string, Delta & { day: number }>()
  const users = new Map<string, { release: string; environment: string; user: string; sessions: number; crashed: number }>()
  const releaseOf = (u: Unit) => {
    const key = `${u.release}\u0000${u.environment}`
    let d = releases.get(key)
    if (!d) releases.set(key, (d = zero(u.release, u.environment)))
    return d
  }
  const apply = (u: Unit, sign: number) => {
    addCounts(releaseOf(u), u, sign)
    const dayKey = `${u.release}\u0000${u.environment}\u0000${u.day}`
    let d = days.get(dayKey)
    if (!d) days.set(dayKey, (d = { ...zero(u.release, u.environment), day: u.day }))
    addCounts(d, u, sign)
    if (u.userKey === null) return
    const userKey = `${dayKey.slice(0, dayKey.lastIndexOf('\u0000'))}\u0000${u.userKey}`
    let c = users.get(userKey)
    if (!c) users.set(userKey, (c = { release: u.release, environment: u.environment, user: u.userKey, sessions: 0, crashed: 0 }))
    c.sessions += sign * u.sessions
    c.crashed += sign * u.crashed
  }
  for (const u of removed) apply(u, -1)
  for (const u of added) apply(u, 1)
  for (const u of [...added, ...touched]) {
    const d = releaseOf(u)
    d.first = Math.min(d.first ?? u.startedAt, u.startedAt)
    d.last = Math.max(d.last ?? u.seenAt, u.seenAt)
  }
  // In key order, as every writer takes them, so concurrent ones on PostgreSQL cannot deadlock on these rows.
  for (const [, c] of byKey(users)) {
    if (c.sessions === 0 && c.crashed === 0) continue
    const where = { project_id: projectId, release: c.release, environment: c.environment, user_key: c.user }
    const row = await trx.insertInto('release_users').values({ ...where, sessions: c.sessions, crashed: c.crashed })
      .onConflict((oc) => oc.columns(['project_id', 'release', 'environment', 'user_key']).doUpdateSet((eb) => ({
        sessions: eb('release_users.sessions', '+', eb.ref('excluded.sessions')),
        crashed: eb('release_users.crashed', '+', eb.ref('excluded.crashed')),
      }))).returning(['sessions', 'crashed']).executeTakeFirstOrThrow()
    const d = releaseOf({ release: c.release, environment: c.environment } as Unit)
    d.users += Number(row.sessions > 0) - Number(row.sessions - c.sessions > 0)
    d.crashedUsers += Number(row.crashed > 0) - Number(row.crashed - c.crashed > 0)
    if (row.sessions <= 0) {
      await trx.deleteFrom('release_users').where('project_id', '=', projectId).where('release', '=', c.release)
        .where('environment', '=', c.environment).where('user_key', '=', c.user).execute()
    }
  }
  for (const [, d] of byKey(releases)) await moveRelease(trx, projectId, d)
  for (const [, d] of byKey(days)) await moveDay(trx, projectId, d)
}

async function moveRelease(trx: Db, projectId: string, d: Delta): Promise<void> {
  const counts = {
    sessions: d.sessions, errored: d.errored, crashed: d.crashed, abnormal: d.abnormal, users: d.users, crashed_users: d.crashedUsers,
  }
  if (d.first === null || d.last === null) {
    await trx.updateTable('releases').set((eb) => ({
      sessions: eb('sessions', '+', d.sessions), errored: eb('errored', '+', d.errored), crashed: eb('crashed', '+', d.crashed),
      abnormal: eb('abnormal', '+', d.abnormal), users: eb('users', '+', d.users), crashed_users: eb('crashed_users', '+', d.crashedUsers),
    })).where('project_id', '=', projectId).where('release', '=', d.release).where('environment', '=', d.environment).execute()
    return
  }
  await trx.insertInto('releases')
    .values({ project_id: projectId, release: d.release, environment: d.environment, ...counts, first_seen_at: d.first, last_seen_at: d.last })
    .onConflict((oc) => oc.columns(['project_id', 'release', 'environment']).doUpdateSet((eb) => ({
      sessions: eb('releases.sessions', '+', eb.ref('excluded.sessions')),
      errored: eb('releases.errored', '+', eb.ref('excluded.errored')),
      crashed: eb('releases.crashed', '+', eb.ref('excluded.crashed')),
      abnormal: eb('releases.abnormal', '+', eb.ref('excluded.abnormal')),
      users: eb('releases.users', '+', eb.ref('excluded.users')),
      crashed_users: eb('releases.crashed_users', '+', eb.ref('excluded.crashed_users')),
      first_seen_at: eb.case().when('releases.first_seen_at', '>', eb.ref('excluded.first_seen_at'))
        .then(eb.ref('excluded.first_seen_at')).else(eb.ref('releases.first_seen_at')).end(),
      last_seen_at: eb.case().when('releases.last_seen_at', '<', eb.ref('excluded.last_seen_at'))
        .then(eb.ref('excluded.last_seen_at')).else(eb.ref('releases.last_seen_at')).end(),
    }))).execute()
}

async function moveDay(trx: Db, projectId: string, d: Delta & { day: number }): Promise<void> {
  if (d.sessions === 0 && d.errored === 0 && d.crashed === 0 && d.abnormal === 0) return
  const where = { project_id: projectId, release: d.release, environment: d.environment, day: d.day }
  const row = await trx.insertInto('release_days').values({ ...where, sessions: d.sessions, errored: d.errored, crashed: d.crashed, abnormal: d.abnormal })
    .onConflict((oc) => oc.columns(['project_id', 'release', 'environment', 'day']).doUpdateSet((eb) => ({
      sessions: eb('release_days.sessions', '+', eb.ref('excluded.sessions')),
      errored: eb('release_days.errored', '+', eb.ref('excluded.errored')),
      crashed: eb('release_days.crashed', '+', eb.ref('excluded.crashed')),
      abnormal: eb('release_days.abnormal', '+', eb.ref('excluded.abnormal')),
    }))).returning('sessions').executeTakeFirstOrThrow()
  if (row.sessions <= 0) {
    await trx.deleteFrom('release_days').where('project_id', '=', projectId).where('release', '=', d.release)
      .where('environment', '=', d.environment).where('day', '=', d.day).execute()
  }
}
