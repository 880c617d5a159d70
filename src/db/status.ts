import type { FastifyBaseLogger } from 'fastify'
import { classifyDatabaseError, databaseErrorCode, type DatabaseFault } from './errors.ts'

/**
 * An outage or a full disk: failures of one kind, each less than EPISODE_GAP_MS after the last.
 * Near the edge of a full disk small writes succeed between large ones that fail; that flapping
 * stays one episode, logged once as it starts and once as it first recovers.
 */
interface Episode {
  fault: Exclude<DatabaseFault, 'retryable'>
  /** When the episode was last confirmed by a failure. */
  lastFailure: number
  failures: number
  /** A success came after the last failure. */
  recovered: boolean
  recoveryLogged: boolean
}

/**
 * What the service has lately learned about its database, so that an outage or a full disk is
 * logged once with its real cause (not once per request, which would bury it), and `/healthz`
 * can say the disk is full even though the database still answers reads.
 */
export interface DatabaseStatus {
  /** Notes a failed operation; returns what the failure means (null: not a database fault). */
  failed(error: unknown): DatabaseFault | null
  /** A query answered: the database is reachable again (a full disk stays full until a write succeeds). */
  reachable(): void
  /** A write committed: the database is reachable and has room. */
  written(): void
  /** Whether writes recently failed for lack of space and none has succeeded since. */
  storageFull(): boolean
}

/**
 * A failure this long after the previous one of an episode starts a new episode (and is logged
 * again): a fault seen once a day is worth a line each time.
 */
const EPISODE_GAP_MS = 60_000
/**
 * How long a full disk is reported after its last failed write. Nothing else clears it when no
 * writes arrive (a load balancer that took the process out of rotation, say), and a stale "full"
 * must not keep a process out of rotation forever: past this window it is tried again.
 */
const FULL_REPORTED_MS = 30_000

const FAULT_TEXT: Record<Episode['fault'], string> = {
  unavailable: 'database unreachable: requests answer 503 service_unavailable until it answers again',
  full: 'database disk is full: writes answer 503 storage_full until space is freed',
}

export function createDatabaseStatus(log: FastifyBaseLogger, now: () => number = Date.now): DatabaseStatus {
  let episode: Episode | null = null

  const recover = (): void => {
    if (!episode || episode.recovered) return
    episode.recovered = true
    if (episode.recoveryLogged) return
    episode.recoveryLogged = true
    log.info({ fault: episode.fault, failures: episode.failures }, `database ${episode.fault === 'full' ? 'writable' : 'reachable'} again`)
  }

  return {
    failed(error) {
      const fault = classifyDatabaseError(error)
      if (fault !== 'unavailable' && fault !== 'full') return fault
      const at = now()
      if (episode?.fault !== fault || at - episode.lastFailure > EPISODE_GAP_MS) {
        log.error({ err: error, code: databaseErrorCode(error) }, FAULT_TEXT[fault])
        episode = { fault, lastFailure: at, failures: 0, recovered: false, recoveryLogged: false }
      }
      episode.recovered = false
      episode.lastFailure = at
      episode.failures++
      return fault
    },
    reachable() {
      if (episode?.fault === 'unavailable') recover()
    },
    written() {
      recover()
    },
    storageFull() {
      return episode?.fault === 'full' && !episode.recovered && now() - episode.lastFailure <= FULL_REPORTED_MS
    },
  }
}
