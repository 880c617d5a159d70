import type { RecordingStores } from '../recording/store/index.ts'
import { purgeTrash } from '../recording/upkeep.ts'
import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'
import { invalidBody } from '../errors.ts'
import { getProject, ipStorageOf } from '../projects/service.ts'
import { eraseVisits, type EraseMatch } from '../visits/index.ts'
import { eraseUserUnits } from '../releases/index.ts'
import { canonicalIp, truncateIp, type IpStorage } from './ip.ts'
import type { EraseBody, EraseResult } from './schema.ts'

const SELECTORS = ['sessionId', 'ip', 'userId'] as const

/** How an erase named its visits, for the audit trail: never the value, which is what was erased. */
export const eraseKind = (body: EraseBody): 'visit' | 'user' | 'address' =>
  body.sessionId !== undefined ? 'visit' : body.userId !== undefined ? 'user' : 'address'

/**
 * The visits an erase request names: exactly one selector, since "erase user A and IP B" is two requests that a
 * person confirms one by one. A typed IP address is written as the service stores one (canonicalIp).
 */
export function eraseMatch(body: EraseBody): EraseMatch {
  const given = SELECTORS.filter((key) => body[key] !== undefined)
  if (given.length !== 1) {
    throw invalidBody(`Give exactly one of sessionId, ip and userId (got ${given.length === 0 ? 'none' : given.join(' and ')})`)
  }
  if (body.sessionId !== undefined) return { sessionId: body.sessionId }
  if (body.userId !== undefined) return { userId: body.userId }
  const ip = canonicalIp(body.ip ?? '')
  if (ip === null) throw invalidBody(`ip must be an IPv4 or IPv6 address such as 203.0.113.7 or 2001:db8::1 (got ${JSON.stringify(body.ip)})`, 'ip')
  return { ip }
}

/**
 * Erases what a project holds of one visitor (eraseVisits): the visits the request names, with their events
 * and recordings, and for a user also the Sentry sessions that name them in release health. An unknown project is a 404. `serverIpStorage` is config.ipStorage: when an address matched
 * nothing because the project does not store full addresses, the answer's note says so. The recordings' objects are
 * deleted from their stores before it answers; a store that is down keeps them in the trash, which the upkeep retries.
 */
export async function eraseVisitor(
  db: Kysely<Database>, stores: RecordingStores, projectId: string, body: EraseBody, serverIpStorage: IpStorage,
  onProgress?: (erased: number) => void,
): Promise<EraseResult> {
  const project = await getProject(db, projectId)
  const match = eraseMatch(body)
  const erased = await eraseVisits(db, project.id, match, { onProgress })
  // Sentry SDKs' sessions name the user by `did`: they leave release health with the user's visits.
  if ('userId' in match) await eraseUserUnits(db, project.id, match.userId)
  await purgeTrash(db, stores)
  return { erased, note: erased === 0 && 'ip' in match ? ipNote(match.ip, ipStorageOf(project, serverIpStorage)) : null }
}

/** Why an address may match no visit of a project that keeps less than full addresses. */
function ipNote(ip: string, storage: IpStorage): string | null {
  if (storage === 'none') return 'This project stores no IP addresses now (IP storage: none); visits stored before that keep theirs.'
  const network = truncateIp(ip)
  if (storage !== 'truncated' || network === ip) return null
  return `This project stores truncated addresses: visits from ${ip} are stored as ${network}, which every visitor of that `
    + `network shares. Erasing ${network} deletes all of them.`
}
