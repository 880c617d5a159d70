import type { FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'
import type { ReadAccess } from '../http/read-access.ts'
import { API_KEY_SECURITY, UPLOAD_KEY_SECURITY } from '../util/schema.ts'
import { API_KEY_PREFIX, UPLOAD_KEY_PREFIX } from '../projects/keys.ts'
import { projectForApiKey, projectForUploadKey, type ProjectContext } from '../projects/service.ts'

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

/** What tells the read API's key and the upload key apart: which project each finds, and what each is for. */
interface KeyKind {
  name: string
  find: (db: FastifyRequest['server']['db'], key: string) => Promise<ProjectContext | null>
  /** The prefix of the other secret key, which this route refuses with a message naming the right one. */
  otherPrefix: string
  otherMessage: string
  where: string
}

/**
 * An onRequest hook that resolves the key to its project or answers 401. One key, once or in both headers;
 * different keys are refused rather than one picked, since a client sending two cannot know which project it
 * would read. Each secret key has one purpose: the other one is refused, saying which key the route takes.
 */
const requireKey = (kind: KeyKind) => async (request: FastifyRequest): Promise<void> => {
  const keys = offeredApiKeys(request)
  if (keys.length > 1) {
    throw new AppError(401, 'invalid_api_key',
      `Send exactly one ${kind.name}: this request carries different keys (in repeated Authorization headers, or in `
      + 'Authorization and X-Api-Key).')
  }
  const [key] = keys
  if (key === undefined) {
    throw new AppError(401, 'missing_api_key', `Send the project ${kind.name} as "Authorization: Bearer <key>" or "X-Api-Key: <key>"; ${kind.where}.`)
  }
  if (key.startsWith(kind.otherPrefix)) throw new AppError(401, 'invalid_api_key', kind.otherMessage)
  const project = await kind.find(request.server.db, key)
  if (!project) {
    throw new AppError(401, 'invalid_api_key', `The ${kind.name} is not valid. It may have been rotated; use the current key: ${kind.where}.`)
  }
  request.project = project
}

const requireApiKey = requireKey({
  name: 'API key', find: projectForApiKey, where: 'it is on the project dashboard (API tab)', otherPrefix: UPLOAD_KEY_PREFIX,
  otherMessage: `This is the project's upload key (${UPLOAD_KEY_PREFIX}…), which only uploads source maps; read with its API key `
    + `(${API_KEY_PREFIX}…), on the project dashboard (API tab).`,
})

/** The read routes' access with the project API key, documented as the API's security. */
export const apiKeyAccess: ReadAccess = { authenticate: requireApiKey, schema: { security: API_KEY_SECURITY } }

/** The authenticated project; only for handlers behind an auth hook. */
export function projectOf(request: FastifyRequest): ProjectContext {
  if (!request.project) throw new Error('route is missing its auth hook')
  return request.project
}

/** The source map upload's access: the project upload key, and only it. */
export const uploadKeyAccess: ReadAccess = {
  authenticate: requireKey({
    name: 'upload key', find: projectForUploadKey, otherPrefix: API_KEY_PREFIX,
    where: 'the dashboard\'s API tab shows it once when it is made, and `sessionwatch project rotate-key --upload --project ID` makes a new one',
    otherMessage: `This is the project's API key (${API_KEY_PREFIX}…), which only reads: upload source maps with its upload key `
      + `(${UPLOAD_KEY_PREFIX}…). A project made before upload keys gets one on the dashboard's API tab or with `
      + '`sessionwatch project rotate-key --upload --project ID`.',
  }),
  schema: { security: UPLOAD_KEY_SECURITY },
}
