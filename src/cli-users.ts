/**
 * `sessionwatch user …` and `sessionwatch audit list` (src/accounts/service.ts and src/audit/service.ts do the work):
 * what an owner does on the People and Audit pages, from a shell on the server. The CLI acts as `cli` in the trail.
 */
import type { Kysely } from 'kysely'
import { isRole, ROLES } from './accounts/roles.ts'
import {
  ensureOwner, invitePerson, listPeople, roleText, passwordLink, removePerson, renamePerson, setPersonRole, type Person, type PersonInput,
} from './accounts/service.ts'
import { findUserByEmail } from './accounts/store.ts'
import { MAX_AUDIT_PAGE } from './audit/schema.ts'
import { mailInvitation, openMailer } from './mail/mailer.ts'
import { CLI_ACTOR, listAudit } from './audit/service.ts'
import { args, required, UsageError } from './cli-options.ts'
import type { Config } from './config.ts'
import type { Database } from './database.ts'
import { linkUrl } from './dashboard/account-routes.ts'
import type { CliIo } from './cli-sourcemaps.ts'

type Io = Pick<CliIo, 'print' | 'note'>
const personOptions = { email: { type: 'string' }, role: { type: 'string' }, projects: { type: 'string' }, json: { type: 'boolean' } } as const

function roleInput(values: { role?: string; projects?: string }): PersonInput {
  const role = required(values, 'role')
  if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')} (got "${role.slice(0, 40)}")`)
  const projects = values.projects?.split(',').map((p) => p.trim()).filter((p) => p !== '')
  if (values.projects !== undefined && projects?.length === 0) throw new UsageError('--projects needs project ids, comma-separated (leave it out for every project)')
  return { role, projects }
}

const describeRoles = (p: Pick<Person, 'role' | 'projects'>) =>
  [...(p.role === null ? [] : [`${p.role} on every project`]), ...p.projects.map((r) => `${r.role} on ${r.projectId}`)].join(', ') || 'no role'

/** Where links point: PUBLIC_URL, else this machine on PORT. */
const base = (config: Config) => config.publicUrl ?? `http://localhost:${config.port}`

export async function userCommand(db: Kysely<Database>, config: Config, io: Io, sub: string | undefined, rest: string[]): Promise<number> {
  // Before the service's first start there is no owner yet: the one made here is the one it would make.
  const password = await ensureOwner(db, { generate: config.adminPassword === null })
  if (password !== null) io.note(`Made the first owner, admin, with the password ${password} (shown once; stored hashed).`)
  if (sub === 'add') {
    const { values } = args(rest, personOptions)
    const invited = await invitePerson(db, CLI_ACTOR, required(values, 'email'), roleInput(values))
    const inviteUrl = linkUrl(base(config), invited.token)
    const mailer = config.smtp === null ? null : openMailer(config.smtp)
    const mailed = await mailInvitation(mailer, { to: invited.person.email, inviteUrl, invitedBy: 'An owner', role: roleText(invited.person), expiresAt: new Date(invited.expiresAt) })
      .finally(() => { mailer?.close() })
    if (mailed.emailError !== null) io.note(`Could not email the invitation: ${mailed.emailError}`)
    io.print(values.json ? JSON.stringify({ ...invited.person, inviteUrl, expiresAt: invited.expiresAt, ...mailed })
      : `Invited ${invited.person.email} (${describeRoles(invited.person)})${mailed.emailed ? '; the link was emailed to them' : ''}.\n`
        + `Invitation link (one use, until ${invited.expiresAt}):\n  ${inviteUrl}`)
    return 0
  }
  if (sub === 'list') {
    const { values } = args(rest, { json: { type: 'boolean' } })
    const people = await listPeople(db)
    if (values.json) io.print(JSON.stringify(people))
    else for (const p of people) io.print(`${p.email}  ${describeRoles(p)}${p.hasPassword ? '' : '  (invited, no password yet)'}  last sign-in: ${p.lastSignInAt ?? 'never'}`)
    return 0
  }
  if (sub === 'set-role') {
    const { values } = args(rest, personOptions)
    const person = await setPersonRole(db, CLI_ACTOR, required(values, 'email'), roleInput(values))
    io.print(values.json ? JSON.stringify(person) : `${person.email}: ${describeRoles(person)}`)
    return 0
  }
  if (sub === 'remove') {
    const { values } = args(rest, { email: { type: 'string' } })
    const email = required(values, 'email')
    await removePerson(db, CLI_ACTOR, email)
    io.print(`Removed ${email}; their sign-ins have ended.`)
    return 0
  }
  if (sub === 'reset-password') {
    const { values } = args(rest, { email: { type: 'string' }, json: { type: 'boolean' } })
    const link = await passwordLink(db, CLI_ACTOR, required(values, 'email'))
    const inviteUrl = linkUrl(base(config), link.token)
    io.print(values.json ? JSON.stringify({ email: link.email, inviteUrl, expiresAt: link.expiresAt })
      : `${link.email}'s password no longer works and their sign-ins have ended.\nLink to set a new one (one use, until ${link.expiresAt}):\n  ${inviteUrl}`)
    return 0
  }
  if (sub === 'rename') {
    const { values } = args(rest, { email: { type: 'string' }, to: { type: 'string' } })
    const person = await renamePerson(db, CLI_ACTOR, required(values, 'email'), required(values, 'to'))
    io.print(`Renamed: ${person.email} now signs in with that address.`)
    return 0
  }
  throw new UsageError(`unknown command "user${sub === undefined ? '' : ` ${sub}`}"`)
}

export async function auditCommand(db: Kysely<Database>, io: Io, sub: string | undefined, rest: string[]): Promise<number> {
  if (sub !== 'list') throw new UsageError(`unknown command "audit${sub === undefined ? '' : ` ${sub}`}"`)
  const { values } = args(rest, { project: { type: 'string' }, user: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } })
  const since = values.since === undefined ? undefined : Date.parse(`${values.since}T00:00:00Z`)
  if (since !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(values.since ?? '') || Number.isNaN(since))) throw new UsageError(`--since must be a date such as 2026-11-01 (got "${values.since?.slice(0, 40) ?? ''}")`)
  const limit = values.limit === undefined ? 100 : Number(values.limit)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT_PAGE) throw new UsageError(`--limit must be a whole number from 1 to ${MAX_AUDIT_PAGE}`)
  let userId: string | undefined
  if (values.user !== undefined) {
    const user = await findUserByEmail(db, values.user)
    if (!user) throw new UsageError(`No person with email "${values.user.slice(0, 100)}" (user list shows them)`)
    userId = user.id
  }
  const page = await listAudit(db, { projectIds: values.project === undefined ? null : [values.project] }, { userId, since, limit })
  if (values.json) io.print(JSON.stringify(page.lines))
  else if (page.lines.length === 0) io.print('No audit lines match.')
  else {
    for (const l of page.lines) {
      io.print([l.at, l.actor, l.action, l.projectId ?? '-', l.target ?? '-', l.detail === null ? '' : JSON.stringify(l.detail), l.ip ?? ''].join('  ').trimEnd())
    }
  }
  return 0
}
