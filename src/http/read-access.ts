import type { FastifyRequest } from 'fastify'

/**
 * How a mount of the read routes (getSession, the recording) finds its project: with the project's
 * API key under /api/v1, or with the dashboard sign-in and the project id in the path under
 * /app/api/projects/:projectId. The routes are declared once and mounted with either.
 */
export interface ReadAccess {
  /** onRequest hook: sets `request.project`, or throws 401/404 before anything else is looked at. */
  authenticate: (request: FastifyRequest) => Promise<void>
  /** What each route adds to its schema: its OpenAPI security, or `hide` for a mount kept out of the document. */
  schema: { security: Record<string, string[]>[] } | { hide: true }
}
