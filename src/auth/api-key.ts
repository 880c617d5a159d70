import type { FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'
import type { ReadAccess } from '../http/read-access.ts'
import { API_KEY_SECURITY } from '../shared/schema.ts'
import { projectForApiKey, type ProjectContext } from '../projects/service.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The project whose key authenticated the request; set by the auth hooks. */
    project: ProjectContext | null
  }
}

/**
 * The distinct keys a request offers: the token of every `Authorization: Bearer <key>` header and
 * every `X-Api-Key` value. Read from the raw headers, since Node keeps only the first of repeated
 * Authorization headers (and joins repeated X-Api-Key headers with ", "). An Authorization header
 * of another scheme, or an empty one, offers no key.
 */
export function offeredApiKeys(request: FastifyRequest): string[] {
  const keys = new Set<string>()
  const raw = request.raw.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]?.toLowerCase()
    const value = raw[i + 1] ?? ''
    if (name === 'authorization') {
      const token = /^Bearer[ ]+(\S+)\s*$/i.exec(value)?.[1]
      if (token !== undefined) keys.add(token)
    } else if (name === 'x-api-key') {
      for (const part of value.split(',')) if (part.trim()) keys.add(part.trim())
    }
  }
  return [...keys]
}

/**
 * onRequest hook of the read API: resolves the key to its project or answers 401. One key, once or
 * in both headers; different keys are refused rather than one picked, since a client sending two
 * cannot know which project it would read.
 */
async function requireApiKey(request: FastifyRequest): Promise<void> {
  const keys = offeredApiKeys(request)
  if (keys.length > 1) {
    throw new AppError(401, 'invalid_api_key',
      'Send exactly one API key: this request carries different keys (in repeated Authorization headers, or in '
      + 'Authorization and X-Api-Key).')
  }
  const [key] = keys
  if (key === undefined) {
    throw new AppError(401, 'missing_api_key',
      'Send the project API key as "Authorization: Bearer <key>" or "X-Api-Key: <key>"; it is on the project dashboard (API tab).')
  }
  const project = await projectForApiKey(request.server.db, key)
  if (!project) {
    throw new AppError(401, 'invalid_api_key',
      'The API key is not valid. It may have been rotated; use the current key from the dashboard (API tab).')
  }
  request.project = project
}

/** The read routes' access with the project API key, documented as the API's security. */
export const apiKeyAccess: ReadAccess = { authenticate: requireApiKey, schema: { security: API_KEY_SECURITY } }

/** The authenticated project; only for handlers behind an auth hook. */
export function projectOf(request: FastifyRequest): ProjectContext {
  if (!request.project) throw new Error('route is missing its auth hook')
  return request.project
}
