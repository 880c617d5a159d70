import type { FastifyRequest, RouteOptions } from 'fastify'
import { atLeast, type Role } from '../accounts/roles.ts'
import { roleOn } from '../accounts/service.ts'
import type { AuditAction } from '../audit/schema.ts'
import { AppError } from '../errors.ts'
import type { SignedIn } from './auth.ts'

/** Who may call a route: anyone, anyone signed in, or at least a role (on the project in the path, else on every project, or for `audit`, on any). */
export type Need = 'public' | 'signedIn' | Role | 'anyAdmin'

/**
 * Every dashboard API route (without the /app/api prefix) and who may call it: the one place that says it, checked on
 * every request before the body is read. A route missing here fails the app's start, so none is left open by omission.
 */
export const ROUTE_ACCESS: Readonly<Record<string, Need>> = {
  'POST /session': 'public',
  'DELETE /session': 'signedIn',
  'GET /me': 'signedIn',
  'GET /me/sign-ins': 'signedIn',
  'DELETE /me/sign-ins/:signInId': 'signedIn',
  'GET /links/:token': 'public',
  'GET /sign-in-options': 'public',
  'GET /sso/start': 'public',
  'GET /sso/callback': 'public',
  'POST /links/:token': 'public',
  'GET /projects': 'signedIn',
  'POST /projects': 'owner',
  'PATCH /projects/:projectId': 'admin',
  'GET /projects/:projectId/usage': 'viewer',
  'POST /projects/:projectId/api-key': 'admin',
  'POST /projects/:projectId/upload-key': 'admin',
  'GET /projects/:projectId/sessions': 'viewer',
  'GET /projects/:projectId/sessions/:id': 'viewer',
  'GET /projects/:projectId/sessions/:id/recording': 'viewer',
  'GET /projects/:projectId/sessions/:id/recording/chunks/:chunkId': 'viewer',
  'GET /projects/:projectId/issues': 'viewer',
  'GET /projects/:projectId/issues/:id': 'viewer',
  'GET /projects/:projectId/issues/:id/histogram': 'viewer',
  'POST /projects/:projectId/issues/:id/status': 'member',
  'PUT /projects/:projectId/issues/:id/assignee': 'member',
  'GET /projects/:projectId/issues/:id/comments': 'viewer',
  'POST /projects/:projectId/issues/:id/comments': 'member',
  'PATCH /projects/:projectId/issues/:id/comments/:commentId': 'member',
  'GET /projects/:projectId/people': 'member',
  'POST /projects/:projectId/sessions/:id/public-link': 'member',
  'GET /projects/:projectId/public-links': 'member',
  'DELETE /projects/:projectId/public-links/:linkId': 'member',
  'GET /public-replays/:token/recording': 'public',
  'GET /public-replays/:token/recording/chunks/:chunkId': 'public',
  'GET /projects/:projectId/releases': 'viewer',
  'GET /projects/:projectId/releases/:release': 'viewer',
  'GET /projects/:projectId/pages': 'viewer',
  'GET /projects/:projectId/webhooks': 'admin',
  'POST /projects/:projectId/webhooks': 'admin',
  'DELETE /projects/:projectId/webhooks/:webhookId': 'admin',
  'GET /projects/:projectId/webhooks/deliveries': 'admin',
  'POST /projects/:projectId/erase': 'admin',
  'GET /people': 'owner',
  'POST /people': 'owner',
  'PATCH /people/:userId': 'owner',
  'DELETE /people/:userId': 'owner',
  'POST /people/:userId/password-link': 'owner',
  'GET /people/:userId/sign-ins': 'owner',
  'DELETE /people/:userId/sign-ins': 'owner',
  'GET /audit': 'anyAdmin',
}

/** Reads that the audit trail records, with what they name: who watched which visit's replay, say. */
export const AUDITED_READS: Readonly<Record<string, AuditAction>> = {
  'GET /projects/:projectId/sessions/:id': 'visit_viewed',
  'GET /projects/:projectId/sessions/:id/recording': 'replay_viewed',
  'GET /projects/:projectId/issues/:id': 'issue_viewed',
}

const PREFIX = '/app/api'
/** `METHOD /path` without the prefix and a trailing slash (a plugin's `/` route is registered with and without one). */
export function routeKey(method: string, url: string): string {
  const path = url.startsWith(PREFIX) ? url.slice(PREFIX.length) : url
  return `${method} ${path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path}`
}

/** Each route's need, from ROUTE_ACCESS (HEAD routes follow their GET); a route without one stops the start. */
export function needOf(route: Pick<RouteOptions, 'method' | 'url'>): Need {
  const method = Array.isArray(route.method) ? route.method[0] : route.method
  const key = routeKey(method === 'HEAD' ? 'GET' : String(method), route.url)
  const need = ROUTE_ACCESS[key]
  if (need === undefined) throw new Error(`dashboard route ${key} has no entry in ROUTE_ACCESS (src/dashboard/access.ts)`)
  return need
}

/** Refuses a request its signed-in person's role does not allow, naming the role it needs. */
export function checkAccess(need: Need, request: FastifyRequest, signedIn: SignedIn | null): void {
  if (need === 'public' || need === 'signedIn') return
  const access = signedIn?.access
  if (!access) return
  const projectId = (request.params as { projectId?: string } | undefined)?.projectId
  if (need === 'anyAdmin') {
    if (atLeast(access.role, 'admin') || [...access.projects.values()].some((r) => atLeast(r, 'admin'))) return
    throw new AppError(403, 'forbidden', 'This needs the admin role on at least one project.')
  }
  const role = projectId === undefined ? access.role : roleOn(access, projectId)
  if (atLeast(role, need)) return
  if (projectId !== undefined && role === null) throw new AppError(403, 'forbidden', `You have no role on project "${projectId.slice(0, 100)}"; an owner can give you one.`)
  throw new AppError(403, 'forbidden', `This needs the ${need} role${projectId === undefined ? ' on every project' : ' on this project'}; you have ${role ?? 'none'}.`)
}
