import type { Selectable, Updateable } from 'kysely'
import type { Db } from '../database.ts'
import { canMatch } from '../db/sql.ts'
import { higher, type Role } from './roles.ts'
import type { InvitationTable, SignInTable, UserTable } from './tables.ts'

/*
 * The accounts tables (`users`, `user_projects`, `invitations`, `sign_ins`): only this module reads or writes them.
 * Sign-ins are rows rather than signed cookies, so signing out, a new password or a removed account ends them in
 * every process of the service at once.
 */

export type UserRow = Selectable<UserTable>
export type SignInRow = Selectable<SignInTable>
export interface ProjectRole { projectId: string; role: Role }

export async function insertUser(db: Db, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute()
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  if (!canMatch(email)) return undefined
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst()
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  if (!canMatch(id)) return undefined
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The emails of some people by id: how issues name their assignees and comment authors. */
export async function emailsOf(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids)]
  if (wanted.length === 0) return new Map()
  return new Map((await db.selectFrom('users').select(['id', 'email']).where('id', 'in', wanted).execute()).map((u) => [u.id, u.email]))
}

/** People with a role on a project: on every project, or on it alone. */
export async function peopleOn(db: Db, projectId: string): Promise<{ id: string; email: string; role: Role }[]> {
  const everywhere = await db.selectFrom('users').select(['id', 'email', 'role']).where('role', 'is not', null).execute()
  const here = await db.selectFrom('users').innerJoin('user_projects', 'user_projects.user_id', 'users.id')
    .select(['users.id', 'users.email', 'user_projects.role']).where('user_projects.project_id', '=', projectId).execute()
  const best = new Map<string, { id: string; email: string; role: Role }>()
  for (const p of [...everywhere, ...here]) {
    if (p.role === null) continue
    const seen = best.get(p.id)
    best.set(p.id, { id: p.id, email: p.email, role: higher(seen?.role ?? null, p.role) ?? p.role })
  }
  return [...best.values()].sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0))
}

export const listUserRows = (db: Db): Promise<UserRow[]> => db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute()

export const countUsers = async (db: Db): Promise<number> =>
  Number((await db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

export const countOwners = async (db: Db): Promise<number> =>
  Number((await db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).where('role', '=', 'owner').executeTakeFirstOrThrow()).n)

export async function updateUser(db: Db, id: string, patch: Updateable<UserTable>): Promise<void> {
  await db.updateTable('users').set(patch).where('id', '=', id).execute()
}

/** The per-project roles of some people (all of them when `userIds` is null). */
export async function projectRoles(db: Db, userIds: readonly string[] | null): Promise<Map<string, ProjectRole[]>> {
  if (userIds?.length === 0) return new Map()
  let query = db.selectFrom('user_projects').select(['user_id', 'project_id', 'role']).orderBy('project_id')
  if (userIds !== null) query = query.where('user_id', 'in', userIds)
  const byUser = new Map<string, ProjectRole[]>()
  for (const row of await query.execute()) {
    const list = byUser.get(row.user_id) ?? []
    list.push({ projectId: row.project_id, role: row.role })
    byUser.set(row.user_id, list)
  }
  return byUser
}

/** Replaces a person's per-project roles. */
export async function setProjectRoles(db: Db, userId: string, roles: readonly ProjectRole[]): Promise<void> {
  await db.deleteFrom('user_projects').where('user_id', '=', userId).execute()
  if (roles.length > 0) {
    await db.insertInto('user_projects').values(roles.map((r) => ({ user_id: userId, project_id: r.projectId, role: r.role }))).execute()
  }
}

/** Deletes a person with their roles, links and sign-ins: one operation, so no sign-in outlives its account. */
export async function deleteUserRows(db: Db, userId: string): Promise<void> {
  for (const table of ['user_projects', 'invitations', 'sign_ins'] as const) await db.deleteFrom(table).where('user_id', '=', userId).execute()
  await db.deleteFrom('users').where('id', '=', userId).execute()
}

/** A deleted project's roles go with it. */
export async function forgetProject(db: Db, projectId: string): Promise<void> {
  await db.deleteFrom('user_projects').where('project_id', '=', projectId).execute()
}

/** Stores a new link, replacing the person's earlier ones: only the latest link works. */
export async function replaceInvitation(db: Db, row: Selectable<InvitationTable>): Promise<void> {
  await db.deleteFrom('invitations').where((eb) => eb.or([eb('user_id', '=', row.user_id), eb('expires_at', '<=', row.created_at)])).execute()
  await db.insertInto('invitations').values(row).execute()
}

/** Takes a link once: it is deleted as it is read, so a second use finds nothing. */
export async function takeInvitation(db: Db, tokenHash: string, now: number): Promise<Selectable<InvitationTable> | undefined> {
  if (!canMatch(tokenHash)) return undefined
  const row = await db.deleteFrom('invitations').where('token_hash', '=', tokenHash).returningAll().executeTakeFirst()
  return row !== undefined && row.expires_at > now ? row : undefined
}

export async function findInvitation(db: Db, tokenHash: string, now: number): Promise<Selectable<InvitationTable> | undefined> {
  if (!canMatch(tokenHash)) return undefined
  return db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).where('expires_at', '>', now).executeTakeFirst()
}

/** Stores a new sign-in, and sweeps the expired ones while at it (sign-ins are rare, and the index finds them). */
export async function insertSignIn(db: Db, row: SignInRow): Promise<void> {
  await db.deleteFrom('sign_ins').where('expires_at', '<=', row.created_at).execute()
  await db.insertInto('sign_ins').values(row).execute()
}

export async function findSignIn(db: Db, tokenHash: string): Promise<SignInRow | undefined> {
  if (!canMatch(tokenHash)) return undefined
  return db.selectFrom('sign_ins').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst()
}

export const listSignIns = (db: Db, userId: string, now: number): Promise<SignInRow[]> =>
  db.selectFrom('sign_ins').selectAll().where('user_id', '=', userId).where('expires_at', '>', now).orderBy('created_at', 'desc').execute()

/** Ends sign-ins: one by its cookie's token, one of a person's by its id, or all of a person's. */
export async function deleteSignIns(db: Db, which: { tokenHash: string } | { userId: string; id?: string }): Promise<number> {
  let query = db.deleteFrom('sign_ins')
  if ('tokenHash' in which) query = query.where('token_hash', '=', which.tokenHash)
  else {
    query = query.where('user_id', '=', which.userId)
    if (which.id !== undefined) query = query.where('id', '=', which.id)
  }
  return Number((await query.executeTakeFirst()).numDeletedRows)
}

export async function findUserBySubject(db: Db, subject: string): Promise<UserRow | undefined> {
  if (!canMatch(subject)) return undefined
  return db.selectFrom('users').selectAll().where('oidc_subject', '=', subject).executeTakeFirst()
}

/** Keeps a single sign-on under way, sweeping the expired ones while at it. */
export async function insertSsoState(db: Db, row: { state_hash: string; pending: string; expires_at: number }, now: number): Promise<void> {
  await db.deleteFrom('sso_states').where('expires_at', '<=', now).execute()
  await db.insertInto('sso_states').values(row).execute()
}

/** Takes a sign-on's state once: deleted as it is read, so a replayed callback finds nothing. */
export async function takeSsoState(db: Db, stateHash: string): Promise<string | undefined> {
  if (!canMatch(stateHash)) return undefined
  return (await db.deleteFrom('sso_states').where('state_hash', '=', stateHash).returning('pending').executeTakeFirst())?.pending
}
