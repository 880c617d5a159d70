import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database, Db } from '../database.ts'
import { claimOnce, metaValue } from '../db/meta.ts'
import { AppError, notFound } from '../errors.ts'
import { audit, CLI_ACTOR, type Actor } from '../audit/service.ts'
import { forgetPerson } from '../issues/index.ts'
import * as replayLinks from '../replay-links/store.ts'
import { listProjects } from '../projects/service.ts'
import { newId, sha256Hex } from '../util/ids.ts'
import { DAY_MS, toIso } from '../util/time.ts'
import { generatePassword, hashPassword } from './passwords.ts'
import { higher, type Role } from './roles.ts'
import * as store from './store.ts'

/** The meta key of the first owner's account: ADMIN_PASSWORD and `admin reset-password` are its password. */
export const ADMIN_USER_KEY = 'admin_user_id'
/** Where the shared dashboard password was kept before accounts: the first owner's password at the next start. */
const LEGACY_PASSWORD_KEY = 'admin_password'
/** The name the first owner signs in with until renamed. */
export const ADMIN_LOGIN = 'admin'
/** How long an invitation or password link works. */
export const LINK_DAYS = 7
const EMAIL = /^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/

export interface Person {
  id: string
  email: string
  name: string | null
  /** The role on every project, or null. */
  role: Role | null
  projects: store.ProjectRole[]
  /** Whether the person has a password yet (an invited person has none until they follow their link). */
  hasPassword: boolean
  createdAt: string
  lastSignInAt: string | null
}

export interface PersonInput {
  role: Role
  /** The projects the role applies to; absent: every project. */
  projects?: readonly string[]
}

const toPerson = (row: store.UserRow, projects: store.ProjectRole[]): Person => ({
  id: row.id, email: row.email, name: row.name, role: row.role, projects, hasPassword: row.password_hash !== null,
  createdAt: toIso(row.created_at), lastSignInAt: row.last_sign_in_at === null ? null : toIso(row.last_sign_in_at),
})

function normalEmail(email: string): string {
  const e = email.trim().toLowerCase()
  if (e !== ADMIN_LOGIN && !EMAIL.test(e)) throw new AppError(400, 'invalid_body', `"${email.slice(0, 100)}" is not an email address such as ann@example.com.`, 'email')
  return e
}

async function roles(db: Db, input: PersonInput): Promise<{ role: Role | null; projects: store.ProjectRole[] }> {
  if (input.projects === undefined) return { role: input.role, projects: [] }
  if (input.role === 'owner') throw new AppError(400, 'invalid_body', 'owner is a role on every project: give it without projects.', 'role')
  if (input.projects.length === 0) throw new AppError(400, 'invalid_body', 'Name at least one project, or none for every project.', 'projects')
  const known = new Set((await listProjects(db)).map((p) => p.id))
  const unknown = input.projects.find((id) => !known.has(id))
  if (unknown !== undefined) throw notFound(`No project with id "${unknown}"`)
  return { role: null, projects: [...new Set(input.projects)].map((projectId) => ({ projectId, role: input.role })) }
}

export async function findPerson(db: Db, email: string): Promise<store.UserRow> {
  const row = await store.findUserByEmail(db, email.trim())
  if (!row) throw notFound(`No person with email "${email.slice(0, 100)}"`)
  return row
}

export async function listPeople(db: Db): Promise<Person[]> {
  const rows = await store.listUserRows(db)
  const byUser = await store.projectRoles(db, null)
  return rows.map((r) => toPerson(r, byUser.get(r.id) ?? []))
}

/** A person's roles in words, as an invitation names them: `member`, or `viewer on 2 projects`. */
export const roleText = (person: Pick<Person, 'role' | 'projects'>): string =>
  person.role ?? `${person.projects[0]?.role ?? 'viewer'} on ${person.projects.length === 1 ? 'one project' : `${person.projects.length} projects`}`

/** A new one-time link for a person, replacing their earlier one; returns its token (only its digest is stored). */
async function newLink(db: Db, userId: string, now: number): Promise<string> {
  const token = randomBytes(32).toString('base64url')
  await store.replaceInvitation(db, { token_hash: sha256Hex(token), user_id: userId, created_at: now, expires_at: now + LINK_DAYS * DAY_MS })
  return token
}

/** Invites a person: their account, their role, and a link to set their password. */
export async function invitePerson(db: Kysely<Database>, actor: Actor, email: string, input: PersonInput, now = Date.now()): Promise<{ person: Person; token: string; expiresAt: string }> {
  const address = normalEmail(email)
  if (address === ADMIN_LOGIN) throw new AppError(400, 'invalid_body', `"${ADMIN_LOGIN}" is the first owner's name; invite people by email.`, 'email')
  return db.transaction().execute(async (trx) => {
    if (await store.findUserByEmail(trx, address)) throw new AppError(409, 'conflict', `${address} already has an account; change its role with set-role.`, 'email')
    const given = await roles(trx, input)
    const row: store.UserRow = { id: newId('u_', 12), email: address, name: null, password_hash: null, role: given.role, created_at: now, last_sign_in_at: null, oidc_subject: null }
    await store.insertUser(trx, row)
    await store.setProjectRoles(trx, row.id, given.projects)
    const token = await newLink(trx, row.id, now)
    await audit(trx, actor, 'user_invited', { target: address, detail: { role: input.role, projects: input.projects ?? null } }, now)
    return { person: toPerson(row, given.projects), token, expiresAt: toIso(now + LINK_DAYS * DAY_MS) }
  })
}

/** Refuses a change that would leave nobody able to manage people. */
async function keepAnOwner(db: Db, row: store.UserRow, nextRole: Role | null): Promise<void> {
  if (row.role === 'owner' && nextRole !== 'owner' && await store.countOwners(db) <= 1) {
    throw new AppError(409, 'conflict', `${row.email} is the only owner: make someone else owner first.`, 'email')
  }
}

export async function setPersonRole(db: Kysely<Database>, actor: Actor, email: string, input: PersonInput, now = Date.now()): Promise<Person> {
  return db.transaction().execute(async (trx) => {
    const row = await findPerson(trx, email)
    const given = await roles(trx, input)
    await keepAnOwner(trx, row, given.role)
    await store.updateUser(trx, row.id, { role: given.role })
    await store.setProjectRoles(trx, row.id, given.projects)
    await audit(trx, actor, 'role_changed', { target: row.email, detail: { from: row.role, role: input.role, projects: input.projects ?? null } }, now)
    return toPerson({ ...row, role: given.role }, given.projects)
  })
}

/** Removes a person: their sign-ins end at once, their issues are unassigned, their comments stay without an author. */
export async function removePerson(db: Kysely<Database>, actor: Actor, email: string, now = Date.now()): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await findPerson(trx, email)
    await keepAnOwner(trx, row, null)
    await forgetPerson(trx, row.id)
    await replayLinks.forgetPerson(trx, row.id)
    await store.deleteUserRows(trx, row.id)
    await audit(trx, actor, 'user_removed', { target: row.email }, now)
  })
}

/** Renames a person (the first owner's `admin` to a real address, say). */
export async function renamePerson(db: Kysely<Database>, actor: Actor, email: string, to: string, now = Date.now()): Promise<Person> {
  const address = normalEmail(to)
  return db.transaction().execute(async (trx) => {
    const row = await findPerson(trx, email)
    if (await store.findUserByEmail(trx, address)) throw new AppError(409, 'conflict', `${address} already has an account.`, 'email')
    await store.updateUser(trx, row.id, { email: address })
    await audit(trx, actor, 'user_renamed', { target: address, detail: { from: row.email } }, now)
    return toPerson({ ...row, email: address }, (await store.projectRoles(trx, [row.id])).get(row.id) ?? [])
  })
}

/** A new link to set a password; the old password stops working and every sign-in of the person ends. */
export async function passwordLink(db: Kysely<Database>, actor: Actor, email: string, now = Date.now()): Promise<{ email: string; token: string; expiresAt: string }> {
  return db.transaction().execute(async (trx) => {
    const row = await findPerson(trx, email)
    await store.updateUser(trx, row.id, { password_hash: null })
    await store.deleteSignIns(trx, { userId: row.id })
    const token = await newLink(trx, row.id, now)
    await audit(trx, actor, 'password_link_made', { target: row.email }, now)
    return { email: row.email, token, expiresAt: toIso(now + LINK_DAYS * DAY_MS) }
  })
}

/** Sets a password from a link, which works once; the person's other sign-ins end. */
export async function setPasswordWithLink(db: Kysely<Database>, token: string, password: string, ip: string | null, now = Date.now()): Promise<store.UserRow> {
  const hash = await hashPassword(password)
  return db.transaction().execute(async (trx) => {
    const link = await store.takeInvitation(trx, sha256Hex(token), now)
    const row = link && await store.findUserById(trx, link.user_id)
    if (!row) throw new AppError(404, 'not_found', 'This link was used already, has expired, or was replaced by a newer one: ask an owner for a new one.')
    await store.updateUser(trx, row.id, { password_hash: hash })
    await store.deleteSignIns(trx, { userId: row.id })
    await audit(trx, { userId: row.id, name: row.email, ip }, 'password_set', { target: row.email }, now)
    return { ...row, password_hash: hash }
  })
}

/** Whose a link is, without using it: the page that sets the password greets them by email. */
export async function linkOwner(db: Db, token: string, now = Date.now()): Promise<{ email: string } | null> {
  const link = await store.findInvitation(db, sha256Hex(token), now)
  const row = link && await store.findUserById(db, link.user_id)
  return row ? { email: row.email } : null
}

/**
 * The first owner: on the first start with accounts, the account `admin`, whose password is the shared dashboard
 * password kept until now, or a new one returned to be printed once (none when ADMIN_PASSWORD is its password:
 * `generate` false). Several processes starting at once: the meta claim lets one create it. `reset` sets a new
 * password (`admin reset-password`), ending the account's sign-ins.
 */
export async function ensureOwner(db: Kysely<Database>, opts: { generate: boolean; reset?: boolean }, now = Date.now()): Promise<string | null> {
  const existing = await metaValue(db, ADMIN_USER_KEY)
  const row = existing === undefined ? undefined : await store.findUserById(db, existing)
  if (row && !opts.reset) return null
  const legacy = opts.reset ? undefined : await metaValue(db, LEGACY_PASSWORD_KEY)
  const password = legacy === undefined && (opts.generate || opts.reset) ? generatePassword() : null
  const hash = password === null ? legacy ?? null : await hashPassword(password)
  return db.transaction().execute(async (trx) => {
    if (row) {
      await store.updateUser(trx, row.id, { password_hash: hash })
      await store.deleteSignIns(trx, { userId: row.id })
      await audit(trx, CLI_ACTOR, 'password_reset', { target: row.email }, now)
      return password
    }
    // A first owner removed by hand from the database is made again, under a name of its own if `admin` is taken.
    const id = newId('u_', 12)
    if (existing === undefined && !(await claimOnce(trx, ADMIN_USER_KEY, id))) return null
    if (existing !== undefined) await trx.updateTable('meta').set({ value: id }).where('key', '=', ADMIN_USER_KEY).execute()
    const login = await store.findUserByEmail(trx, ADMIN_LOGIN) ? `${ADMIN_LOGIN}-${id.slice(2, 8).toLowerCase()}` : ADMIN_LOGIN
    await store.insertUser(trx, { id, email: login, name: null, password_hash: hash, role: 'owner', created_at: now, last_sign_in_at: null, oidc_subject: null })
    return password
  })
}

/** The first owner's account id (ADMIN_PASSWORD's account). */
export const firstOwnerId = async (db: Db): Promise<string | undefined> => metaValue(db, ADMIN_USER_KEY)

/** What a signed-in person may do: their role on every project and per project. */
export interface Access {
  userId: string
  email: string
  role: Role | null
  projects: ReadonlyMap<string, Role>
}

export async function accessOf(db: Db, row: store.UserRow): Promise<Access> {
  const projects = new Map(((await store.projectRoles(db, [row.id])).get(row.id) ?? []).map((p) => [p.projectId, p.role]))
  return { userId: row.id, email: row.email, role: row.role, projects }
}

/** The role a person has on one project (null: none, so the project does not exist for them). */
export const roleOn = (access: Access, projectId: string): Role | null => higher(access.role, access.projects.get(projectId) ?? null)
