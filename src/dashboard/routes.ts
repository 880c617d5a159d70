import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { roleOn } from '../accounts/service.ts'
import { actorOf, audit } from '../audit/service.ts'
import { webhookRoutes } from '../alerts/routes.ts'
import { demoEnabled } from '../assets/demo.ts'
import { eraseRoutes } from '../privacy/routes.ts'
import { AppError } from '../errors.ts'
import { ADMIN_LOGIN } from '../accounts/service.ts'
import { SIGN_IN_BUSY_RETRY_SECONDS, SIGN_IN_DEVICE_SECONDS, SIGN_IN_MAX_CONCURRENT_CHECKS } from './limits.ts'
import { createGate } from '../util/gate.ts'
import { withDsn } from '../projects/format.ts'
import { changeProjects, createProject, getProject, listProjects, rotateKeys, rotateUploadKey, updateProject } from '../projects/service.ts'
import type { ReadAccess } from '../http/read-access.ts'
import { publicBase } from '../http/public-url.ts'
import { recordingRoutes } from '../recording/routes.ts'
import { sessionReadRoutes } from '../sessions/routes.ts'
import { issueReadRoutes } from '../issues/routes.ts'
import { releaseReadRoutes } from '../releases/routes.ts'
import { pageReadRoutes } from '../pages/routes.ts'
import { IssueStatusBody } from '../issues/schema.ts'
import { changeStatus } from '../issues/service.ts'
import { ProjectParams } from '../projects/schema.ts'
import { AUDITED_READS, checkAccess, needOf, routeKey, type Need } from './access.ts'
import { SESSION_MS, type DashboardAuth, type SignedIn } from './auth.ts'
import { accountRoutes } from './account-routes.ts'
import { issueTeamRoutes } from './issue-routes.ts'
import { publicReplayRoutes, replayLinkRoutes } from '../replay-links/routes.ts'
import { ssoRoutes } from './sso-routes.ts'
import {
  DashboardSessionList, IssueInProjectParams, NewProjectBody, ProjectPatchBody, ProjectUsage, SessionsQuery, SignInBody,
} from './schema.ts'
import { dashboardSessions, issueHistogram, makeSignInLimiter, projectUsage } from './service.ts'

const COOKIE = 'sw_admin'
/** Sent only to the sign-in: a browser that signed in here before, whose attempts are counted apart from its address. */
const DEVICE_COOKIE = 'sw_device'
/** Cross-site requests cannot set custom headers without a CORS preflight, which /app never grants. */
const CSRF_HEADER = 'x-sessionwatch'

const hide = { hide: true }

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call a dashboard route (src/dashboard/access.ts). */
    need?: Need
  }
  interface FastifyRequest {
    signedIn: SignedIn | null
  }
}

/** The dashboard's JSON API under /app/api: sign-in, projects, sessions, issues and people, each route behind its role. */
export const dashboardApi = (auth: DashboardAuth): FastifyPluginCallbackTypebox => (app, _opts, done) => {
  const limiter = makeSignInLimiter()
  const checks = createGate(SIGN_IN_MAX_CONCURRENT_CHECKS)
  // Behind a TLS proxy the request itself is plain http: PUBLIC_URL says the browser is on https.
  const secure = (request: FastifyRequest) => request.protocol === 'https' || app.config.publicUrl?.startsWith('https:') === true

  app.decorateRequest('signedIn', null)
  app.decorateRequest('actor', null)
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, need: needOf(route) }
  })
  // Before the body is read: a request its role does not allow learns nothing from validation either.
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && request.headers[CSRF_HEADER] !== '1') {
      throw new AppError(403, 'forbidden', `Dashboard requests that change data need the header "X-Sessionwatch: 1".`)
    }
    const need = request.routeOptions.config.need ?? 'owner'
    if (need === 'public') return
    request.signedIn = await auth.signedIn(readCookie(request, COOKIE), Date.now(), request.ip)
    if (request.signedIn === null) throw new AppError(401, 'not_signed_in', 'Sign in to the dashboard first (POST /app/api/session).')
    request.actor = request.signedIn.actor
    checkAccess(need, request, request.signedIn)
  })
  // A visit, replay or issue shown is a line of the audit trail, written before the answer leaves.
  app.addHook('onSend', async (request, reply) => {
    const action = reply.statusCode === 200 ? AUDITED_READS[routeKey(request.method, request.routeOptions.url ?? '')] : undefined
    if (action === undefined || request.actor === null) return
    const { projectId, id } = request.params as { projectId: string; id: string }
    await audit(app.db, request.actor, action, { projectId, target: id })
  })

  // The attempt is counted, then the gate taken, synchronously once the browser is known: concurrent guesses are
  // each counted before any password is checked (which reads the database), and a flood beyond the gate is refused
  // rather than queued.
  app.post('/session', {
    schema: { ...hide, body: SignInBody },
  }, async (request, reply) => {
    const now = Date.now()
    // A browser that signed in here before is counted on its own: whoever fails from its address cannot delay it.
    const device = await auth.deviceOf(readCookie(request, DEVICE_COOKIE))
    const key = device === null ? `ip ${request.ip}` : `device ${device}`
    const wait = limiter.attempt(key, now)
    if (wait > 0) {
      void reply.header('Retry-After', String(wait))
      throw new AppError(429, 'too_many_requests', `Too many failed sign-ins from this ${device === null ? 'address' : 'browser'}; try again in ${wait} seconds.`)
    }
    if (!checks.tryEnter()) {
      void reply.header('Retry-After', String(SIGN_IN_BUSY_RETRY_SECONDS))
      throw new AppError(429, 'too_many_requests',
        `${SIGN_IN_MAX_CONCURRENT_CHECKS} sign-ins are being checked at the moment, the most at once; try again in ${SIGN_IN_BUSY_RETRY_SECONDS} second.`)
    }
    let user: Awaited<ReturnType<DashboardAuth['verify']>>
    try {
      user = await auth.verify(request.body.login ?? ADMIN_LOGIN, request.body.password)
    } finally {
      checks.leave()
    }
    // Written after the gate is left: the gate bounds password checks, and the line must not hold it.
    if (user === null) {
      await audit(app.db, { userId: null, name: (request.body.login ?? ADMIN_LOGIN).slice(0, 320), ip: request.ip }, 'sign_in_failed', {}, now)
      throw new AppError(401, 'invalid_password', 'The email or the password is not right.')
    }
    // With PASSWORD_LOGIN=false the identity provider is the way in; owners keep a password for when it is down.
    if (!app.config.passwordLogin && user.role !== 'owner') {
      throw new AppError(403, 'forbidden', 'Password sign-in is off here (PASSWORD_LOGIN=false): sign in with single sign-on.')
    }
    limiter.succeed(key)
    const token = await auth.issue(user, now, { ip: request.ip, userAgent: request.headers['user-agent'] ?? null })
    setCookie(reply, COOKIE, '/app', token, SESSION_MS / 1000, secure(request))
    if (device === null) setCookie(reply, DEVICE_COOKIE, '/app/api/session', await auth.newDevice(), SIGN_IN_DEVICE_SECONDS, secure(request))
    return reply.code(204).send()
  })

  // Signing out ends the sign-in on the server too: the old cookie no longer works anywhere.
  app.delete('/session', { schema: hide }, async (request, reply) => {
    await auth.revoke(readCookie(request, COOKIE))
    await audit(app.db, actorOf(request), 'sign_out')
    setCookie(reply, COOKIE, '/app', '', 0, secure(request))
    return reply.code(204).send()
  })

  // The server's IP storage comes along: a project that leaves it unset follows it, and Settings says which it is; and
  // whether /demo is served, which an empty project's list links. Each project comes with its Sentry DSN, on
  // PUBLIC_URL or else the address the dashboard was opened at.
  // Only the projects the person has a role on, each with that role, which the dashboard shows or hides buttons by.
  app.get('/projects', { schema: hide }, async (request) => ({
    projects: (await listProjects(app.db)).flatMap((p) => {
      const role = request.signedIn && roleOn(request.signedIn.access, p.id)
      return role ? [{ ...withDsn(p, publicBase(request)), role }] : []
    }),
    defaults: { ipStorage: app.config.ipStorage, ingestRateLimit: app.config.ingestRateLimit, demo: await demoEnabled(app) },
  }))

  app.post('/projects', { schema: { ...hide, body: NewProjectBody } }, async (request, reply) =>
    reply.code(201).send(withDsn(await changeProjects(app.db, async (trx) => {
      const created = await createProject(trx, request.body)
      await audit(trx, actorOf(request), 'project_created', { projectId: created.id, target: created.name })
      return created
    }), publicBase(request))))

  app.patch('/projects/:projectId', {
    schema: { ...hide, params: ProjectParams, body: ProjectPatchBody },
  }, async (request) => withDsn(await changeProjects(app.db, async (trx) => {
    const updated = await updateProject(trx, request.params.projectId, request.body)
    await audit(trx, actorOf(request), 'settings_changed', { projectId: updated.id, detail: { fields: Object.keys(request.body) } })
    return updated
  }), publicBase(request)))

  app.get('/projects/:projectId/usage', { schema: { ...hide, params: ProjectParams, response: { 200: ProjectUsage } } }, async (request) =>
    projectUsage(app.db, await getProject(app.db, request.params.projectId)))

  app.post('/projects/:projectId/api-key', { schema: { ...hide, params: ProjectParams } }, async (request) =>
    withDsn(await changeProjects(app.db, async (trx) => {
      const rotated = await rotateKeys(trx, request.params.projectId, { ingest: false })
      await audit(trx, actorOf(request), 'keys_rotated', { projectId: rotated.id, detail: { keys: ['api'] } })
      return rotated
    }), publicBase(request)))

  // Creates the upload key of a project made before upload keys, or replaces it; the API key stays.
  app.post('/projects/:projectId/upload-key', { schema: { ...hide, params: ProjectParams } }, async (request) =>
    changeProjects(app.db, async (trx) => {
      const rotated = await rotateUploadKey(trx, request.params.projectId)
      await audit(trx, actorOf(request), 'upload_key_rotated', { projectId: request.params.projectId })
      return rotated
    }))

  app.get('/projects/:projectId/sessions', {
    schema: { ...hide, params: ProjectParams, querystring: SessionsQuery, response: { 200: DashboardSessionList } },
  }, async (request) =>
    dashboardSessions(app.db, await getProject(app.db, request.params.projectId), request.query))

  // getSession, the recording, issues, releases and pages, declared once with the read API: here behind the sign-in above.
  const prefix = '/projects/:projectId'
  void app.register(sessionReadRoutes, { prefix, access: projectInPath })
  void app.register(recordingRoutes, { prefix, access: projectInPath })
  void app.register(issueReadRoutes, { prefix, access: projectInPath })
  void app.register(releaseReadRoutes, { prefix, access: projectInPath })
  void app.register(pageReadRoutes, { prefix, access: projectInPath })

  app.get('/projects/:projectId/issues/:id/histogram', { schema: { ...hide, params: IssueInProjectParams } }, async (request) =>
    issueHistogram(app.db, await getProject(app.db, request.params.projectId), request.params.id))

  app.post('/projects/:projectId/issues/:id/status', {
    schema: { ...hide, params: IssueInProjectParams, body: IssueStatusBody },
  }, async (request) => app.db.transaction().execute(async (trx) => {
    const { projectId, id } = request.params
    const changed = await changeStatus(trx, await getProject(trx, projectId), id, request.body.status)
    await audit(trx, actorOf(request), 'issue_status_changed', { projectId, target: id, detail: { from: changed.before, to: request.body.status } })
    return changed.issue
  }))
  void app.register(webhookRoutes, { prefix: `${prefix}/webhooks` })
  void app.register(eraseRoutes, { prefix: `${prefix}/erase` })
  void app.register(issueTeamRoutes)
  void app.register(replayLinkRoutes)
  void app.register(publicReplayRoutes)
  void app.register(accountRoutes(auth, { cookie: COOKIE, secure, setCookie }))
  void app.register(ssoRoutes(auth, { cookie: COOKIE, secure, setCookie }))
  done()
}

/** Signed in, with a role on it (checked by the hook above for every route here), the project is the one the path names. */
const projectInPath: ReadAccess = {
  authenticate: async (request) => {
    request.project = await getProject(request.server.db, (request.params as { projectId: string }).projectId)
  },
  schema: { hide: true },
}

function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}

/** HttpOnly and SameSite=Strict: page scripts cannot read it and other sites cannot send it; Secure on https. */
export function setCookie(reply: FastifyReply, name: string, path: string, value: string, maxAgeSeconds: number, secure: boolean): void {
  void reply.header('Set-Cookie', `${name}=${value}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`)
}
