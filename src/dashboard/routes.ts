import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { webhookRoutes } from '../alerts/routes.ts'
import { demoEnabled } from '../assets/demo.ts'
import { eraseRoutes } from '../privacy/routes.ts'
import { AppError } from '../errors.ts'
import { SIGN_IN_BUSY_RETRY_SECONDS, SIGN_IN_DEVICE_SECONDS, SIGN_IN_MAX_CONCURRENT_CHECKS } from './limits.ts'
import { createGate } from '../util/gate.ts'
import { withDsn } from '../projects/format.ts'
import { createProject, getProject, listProjects, rotateKeys, rotateUploadKey, updateProject } from '../projects/service.ts'
import type { ReadAccess } from '../http/read-access.ts'
import { publicBase } from '../http/public-url.ts'
import { recordingRoutes } from '../recording/routes.ts'
import { sessionReadRoutes } from '../sessions/routes.ts'
import { issueReadRoutes } from '../issues/routes.ts'
import { releaseReadRoutes } from '../releases/routes.ts'
import { IssueStatusBody } from '../issues/schema.ts'
import { changeStatus } from '../issues/service.ts'
import { ProjectParams } from '../projects/schema.ts'
import { SESSION_MS, type AdminAuth } from './auth.ts'
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

/** The dashboard's JSON API under /app/api: cookie sign-in, projects, and sessions of any project. */
export const dashboardApi = (auth: AdminAuth): FastifyPluginCallbackTypebox => (app, _opts, done) => {
  const limiter = makeSignInLimiter()
  const checks = createGate(SIGN_IN_MAX_CONCURRENT_CHECKS)
  // Behind a TLS proxy the request itself is plain http: PUBLIC_URL says the browser is on https.
  const secure = (request: FastifyRequest) => request.protocol === 'https' || app.config.publicUrl?.startsWith('https:') === true

  app.addHook('onRequest', async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && request.headers[CSRF_HEADER] !== '1') {
      throw new AppError(403, 'forbidden', `Dashboard requests that change data need the header "X-Sessionwatch: 1".`)
    }
    if (request.routeOptions.url === '/app/api/session') return
    if (!(await auth.valid(readCookie(request, COOKIE), Date.now()))) {
      throw new AppError(401, 'not_signed_in', 'Sign in to the dashboard first (POST /app/api/session).')
    }
  })

  // The gate is taken and the attempt counted synchronously, before the first await: concurrent guesses are
  // each counted before any password is checked, and a flood beyond the gate is refused rather than queued.
  app.post('/session', {
    schema: { ...hide, body: SignInBody },
  }, async (request, reply) => {
    const now = Date.now()
    if (!checks.tryEnter()) {
      void reply.header('Retry-After', String(SIGN_IN_BUSY_RETRY_SECONDS))
      throw new AppError(429, 'too_many_requests',
        `${SIGN_IN_MAX_CONCURRENT_CHECKS} sign-ins are being checked at the moment, the most at once; try again in ${SIGN_IN_BUSY_RETRY_SECONDS} second.`)
    }
    // A browser that signed in here before is counted on its own: whoever fails from its address cannot delay it.
    let key = `ip ${request.ip}`
    let device: string | null
    try {
      device = await auth.deviceOf(readCookie(request, DEVICE_COOKIE))
      if (device !== null) key = `device ${device}`
      const wait = limiter.attempt(key, now)
      if (wait > 0) {
        void reply.header('Retry-After', String(wait))
        throw new AppError(429, 'too_many_requests', `Too many failed sign-ins from this ${device === null ? 'address' : 'browser'}; try again in ${wait} seconds.`)
      }
      if (!(await auth.verify(request.body.password))) {
        const hint = (await auth.configured()) ? '' : ' No password is set yet: run `npx sessionwatch admin reset-password`.'
        throw new AppError(401, 'invalid_password', `The password is not right.${hint}`)
      }
    } finally {
      checks.leave()
    }
    limiter.succeed(key)
    setCookie(reply, COOKIE, '/app', await auth.issue(now), SESSION_MS / 1000, secure(request))
    if (device === null) setCookie(reply, DEVICE_COOKIE, '/app/api/session', await auth.newDevice(), SIGN_IN_DEVICE_SECONDS, secure(request))
    return reply.code(204).send()
  })

  // Signing out ends the sign-in on the server too: the old cookie no longer works anywhere.
  app.delete('/session', { schema: hide }, async (request, reply) => {
    await auth.revoke(readCookie(request, COOKIE))
    setCookie(reply, COOKIE, '/app', '', 0, secure(request))
    return reply.code(204).send()
  })

  // The server's IP storage comes along: a project that leaves it unset follows it, and Settings says which it is; and
  // whether /demo is served, which an empty project's list links. Each project comes with its Sentry DSN, on
  // PUBLIC_URL or else the address the dashboard was opened at.
  app.get('/projects', { schema: hide }, async (request) => ({
    projects: (await listProjects(app.db)).map((p) => withDsn(p, publicBase(request))),
    defaults: { ipStorage: app.config.ipStorage, ingestRateLimit: app.config.ingestRateLimit, demo: await demoEnabled(app) },
  }))

  app.post('/projects', { schema: { ...hide, body: NewProjectBody } }, async (request, reply) =>
    reply.code(201).send(withDsn(await createProject(app.db, request.body), publicBase(request))))

  app.patch('/projects/:projectId', {
    schema: { ...hide, params: ProjectParams, body: ProjectPatchBody },
  }, async (request) => withDsn(await updateProject(app.db, request.params.projectId, request.body), publicBase(request)))

  app.get('/projects/:projectId/usage', { schema: { ...hide, params: ProjectParams, response: { 200: ProjectUsage } } }, async (request) =>
    projectUsage(app.db, await getProject(app.db, request.params.projectId)))

  app.post('/projects/:projectId/api-key', { schema: { ...hide, params: ProjectParams } }, async (request) =>
    withDsn(await rotateKeys(app.db, request.params.projectId, { ingest: false }), publicBase(request)))

  // Creates the upload key of a project made before upload keys, or replaces it; the API key stays.
  app.post('/projects/:projectId/upload-key', { schema: { ...hide, params: ProjectParams } }, async (request) =>
    rotateUploadKey(app.db, request.params.projectId))

  app.get('/projects/:projectId/sessions', {
    schema: { ...hide, params: ProjectParams, querystring: SessionsQuery, response: { 200: DashboardSessionList } },
  }, async (request) =>
    dashboardSessions(app.db, await getProject(app.db, request.params.projectId), request.query))

  // getSession and the recording, declared once with the read API: here behind the sign-in above.
  const prefix = '/projects/:projectId'
  void app.register(sessionReadRoutes, { prefix, access: projectInPath })
  void app.register(recordingRoutes, { prefix, access: projectInPath })
  void app.register(issueReadRoutes, { prefix, access: projectInPath })
  void app.register(releaseReadRoutes, { prefix, access: projectInPath })

  app.get('/projects/:projectId/issues/:id/histogram', { schema: { ...hide, params: IssueInProjectParams } }, async (request) =>
    issueHistogram(app.db, await getProject(app.db, request.params.projectId), request.params.id))

  app.post('/projects/:projectId/issues/:id/status', {
    schema: { ...hide, params: IssueInProjectParams, body: IssueStatusBody },
  }, async (request) => (await changeStatus(app.db, await getProject(app.db, request.params.projectId), request.params.id, request.body.status)).issue)
  void app.register(webhookRoutes, { prefix: `${prefix}/webhooks` })
  void app.register(eraseRoutes, { prefix: `${prefix}/erase` })
  done()
}

/** Signed in (checked by the hook above for every route here), the project is the one the path names. */
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
function setCookie(reply: FastifyReply, name: string, path: string, value: string, maxAgeSeconds: number, secure: boolean): void {
  void reply.header('Set-Cookie', `${name}=${value}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`)
}
