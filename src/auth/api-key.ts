import type { FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'
import { projectForApiKey, type ProjectContext } from '../projects/service.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The project whose key authenticated the request; set by the auth hooks. */
    project: ProjectContext | null
  }
}

/**
 * The key from `Authorization: Bearer <key>` or, when that header is absent, `X-Api-Key`.
 * An Authorization header of another scheme is not a key.
 */
export function readApiKey(request: FastifyRequest): string | null {
  const auth = request.headers.authorization
  if (auth !== undefined) {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(auth)
    return m?.[1] ?? null
  }
  const header = request.headers['x-api-key']
  const key = Array.isArray(header) ? header[0] : header
  return key?.trim() ? key.trim() : null
}

/** onRequest hook of the read API: resolves the key to its project or answers 401. */
export async function requireApiKey(this: { db: Parameters<typeof projectForApiKey>[0] }, request: FastifyRequest): Promise<void> {
  const key = readApiKey(request)
  if (key === null) {
    throw new AppError(401, 'missing_api_key',
      'Send the project API key as "Authorization: Bearer <key>" or "X-Api-Key: <key>"; it is on the project dashboard (API tab).')
  }
  const project = await projectForApiKey(this.db, key)
  if (!project) {
    throw new AppError(401, 'invalid_api_key',
      'The API key is not valid. It may have been rotated; use the current key from the dashboard (API tab).')
  }
  request.project = project
}

/** The authenticated project; only for handlers behind an auth hook. */
export function projectOf(request: FastifyRequest): ProjectContext {
  if (!request.project) throw new Error('route is missing its auth hook')
  return request.project
}
