import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { atLeast } from '../accounts/roles.ts'
import {
  invitePerson, linkOwner, roleText, listPeople, passwordLink, removePerson, setPasswordWithLink, setPersonRole,
} from '../accounts/service.ts'
import {
  Invitation, LinkParams, Me, PasswordLink, PeopleList, PersonPatchBody, PersonSchema, NewPersonBody, SetPasswordBody, SignInList, SignInParams, UserParams,
} from '../accounts/schema.ts'
import * as accounts from '../accounts/store.ts'
import { AuditList, AuditQuery } from '../audit/schema.ts'
import { actorOf, audit, listAudit } from '../audit/service.ts'
import { notFound } from '../errors.ts'
import { mailInvitation } from '../mail/mailer.ts'
import { publicBase } from '../http/public-url.ts'
import { listProjects } from '../projects/service.ts'
import { toIso } from '../util/time.ts'
import { SESSION_MS, type DashboardAuth, type SignedIn } from './auth.ts'

const hide = { hide: true }

/** Where a one-time link opens: the dashboard's page that sets a password (the token stays in the fragment, out of logs). */
export const linkUrl = (base: string, token: string): string => `${base}/app#/link/${token}`

export interface Cookies {
  cookie: string
  secure: (request: FastifyRequest) => boolean
  setCookie: (reply: FastifyReply, name: string, path: string, value: string, maxAgeSeconds: number, secure: boolean) => void
}

const signedInOf = (request: { signedIn: SignedIn | null }): SignedIn => {
  if (request.signedIn === null) throw new Error('an account route ran without a sign-in')
  return request.signedIn
}

/** The signed-in person's own account, one-time links, People (owners) and the audit trail (admins). */
export const accountRoutes = (auth: DashboardAuth, cookies: Cookies): FastifyPluginCallbackTypebox => (app, _opts, done) => {
  const emailOf = async (userId: string) => {
    const row = await accounts.findUserById(app.db, userId)
    if (!row) throw notFound(`No person with id "${userId.slice(0, 100)}"`)
    return row.email
  }

  app.get('/me', { schema: { ...hide, response: { 200: Me } } }, (request, reply) => {
    const { access } = signedInOf(request)
    void reply.send({ id: access.userId, email: access.email, role: access.role, projects: [...access.projects].map(([projectId, role]) => ({ projectId, role })) })
  })

  const signIns = async (userId: string, current: string | null) =>
    ({ signIns: (await accounts.listSignIns(app.db, userId, Date.now())).map((s) => ({
      id: s.id, createdAt: toIso(s.created_at), expiresAt: toIso(s.expires_at), userAgent: s.user_agent, ip: s.ip, current: s.id === current,
    })) })

  app.get('/me/sign-ins', { schema: { ...hide, response: { 200: SignInList } } }, async (request) =>
    signIns(signedInOf(request).access.userId, signedInOf(request).signInId))

  app.delete('/me/sign-ins/:signInId', { schema: { ...hide, params: SignInParams } }, async (request, reply) => {
    const { access } = signedInOf(request)
    if (await accounts.deleteSignIns(app.db, { userId: access.userId, id: request.params.signInId }) === 0) throw notFound('No such sign-in of yours')
    await audit(app.db, actorOf(request), 'sign_in_ended', { target: access.email })
    return reply.code(204).send()
  })

  app.get('/links/:token', { schema: { ...hide, params: LinkParams } }, async (request) => {
    const owner = await linkOwner(app.db, request.params.token)
    if (!owner) throw notFound('This link was used already, has expired, or was replaced by a newer one: ask an owner for a new one.')
    return owner
  })

  // Setting the password signs the browser in, as the person expects after choosing one.
  app.post('/links/:token', { schema: { ...hide, params: LinkParams, body: SetPasswordBody } }, async (request, reply) => {
    const user = await setPasswordWithLink(app.db, request.params.token, request.body.password, request.ip)
    const token = await auth.issue(user, Date.now(), { ip: request.ip, userAgent: request.headers['user-agent'] ?? null })
    cookies.setCookie(reply, cookies.cookie, '/app', token, SESSION_MS / 1000, cookies.secure(request))
    return reply.code(204).send()
  })

  app.get('/people', { schema: { ...hide, response: { 200: PeopleList } } }, async () => ({ people: await listPeople(app.db) }))

  app.post('/people', { schema: { ...hide, body: NewPersonBody, response: { 201: Invitation } } }, async (request, reply) => {
    const actor = actorOf(request)
    const invited = await invitePerson(app.db, actor, request.body.email, { role: request.body.role, projects: request.body.projects })
    const inviteUrl = linkUrl(publicBase(request), invited.token)
    const mailed = await mailInvitation(app.mailer, { to: invited.person.email, inviteUrl, invitedBy: actor.name, role: roleText(invited.person), expiresAt: new Date(invited.expiresAt) })
    return reply.code(201).send({ person: invited.person, inviteUrl, expiresAt: invited.expiresAt, ...mailed })
  })

  app.patch('/people/:userId', { schema: { ...hide, params: UserParams, body: PersonPatchBody, response: { 200: PersonSchema } } }, async (request) =>
    setPersonRole(app.db, actorOf(request), await emailOf(request.params.userId), { role: request.body.role, projects: request.body.projects }))

  app.delete('/people/:userId', { schema: { ...hide, params: UserParams } }, async (request, reply) => {
    await removePerson(app.db, actorOf(request), await emailOf(request.params.userId))
    return reply.code(204).send()
  })

  app.post('/people/:userId/password-link', { schema: { ...hide, params: UserParams, response: { 200: PasswordLink } } }, async (request) => {
    const made = await passwordLink(app.db, actorOf(request), await emailOf(request.params.userId))
    return { email: made.email, inviteUrl: linkUrl(publicBase(request), made.token), expiresAt: made.expiresAt }
  })

  app.get('/people/:userId/sign-ins', { schema: { ...hide, params: UserParams, response: { 200: SignInList } } }, async (request) =>
    signIns(request.params.userId, null))

  app.delete('/people/:userId/sign-ins', { schema: { ...hide, params: UserParams } }, async (request, reply) => {
    const email = await emailOf(request.params.userId)
    await accounts.deleteSignIns(app.db, { userId: request.params.userId })
    await audit(app.db, actorOf(request), 'sign_in_ended', { target: email })
    return reply.code(204).send()
  })

  // Owners read every line; an admin reads the lines of the projects they are admin of.
  app.get('/audit', { schema: { ...hide, querystring: AuditQuery, response: { 200: AuditList } } }, async (request) => {
    const { access } = signedInOf(request)
    const q = request.query
    // An admin on every project reads the lines of every project, but not those about people, which are the owners'.
    const readable = access.role === 'owner' ? null
      : atLeast(access.role, 'admin') ? (await listProjects(app.db)).map((p) => p.id)
      : [...access.projects].filter(([, role]) => atLeast(role, 'admin')).map(([id]) => id)
    const projectIds = q.project === undefined ? readable : readable === null || readable.includes(q.project) ? [q.project] : []
    const userId = q.user === undefined ? undefined : (await accounts.findUserByEmail(app.db, q.user))?.id ?? '-'
    return listAudit(app.db, { projectIds }, { userId, since: q.since === undefined ? undefined : Date.parse(`${q.since}T00:00:00Z`), before: q.before, limit: q.limit ?? 50 })
  })
  done()
}
