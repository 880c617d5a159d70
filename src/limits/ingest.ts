import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { INGEST_BURST_SECONDS } from '../../common/limits.ts'
import { RetryLater } from '../errors.ts'
import type { ProjectContext } from '../projects/service.ts'
import { toIso } from '../util/time.ts'
import { giveBackQuota, secondsToNextDay, takeQuota } from './quota.ts'
import { TokenBuckets } from './rate.ts'

/** The fair-use gate every ingest request passes once its project is known (docs/api.md, "Rate limits and quotas"). */
export interface IngestLimits {
  /**
   * Admits a request of `project` carrying `events` events that count against its daily quota, then runs `store`.
   * Refuses with 429 `rate_limited` (RetryLater) when the project is over its rate or its quota is spent; gives the
   * events back when `store` fails, since nothing of it was acknowledged.
   */
  admit<T>(request: FastifyRequest, project: ProjectContext, events: number, store: () => Promise<T>): Promise<T>
  /**
   * An onRequest hook that counts the request against its project's rate before its body is read, when `projectOf`
   * finds the project from what comes before the body (a header, the query); a request refused here costs no parsing,
   * so a project far over its rate holds up the others' requests as little as can be. Otherwise admit counts it.
   */
  early(projectOf: (request: FastifyRequest) => Promise<ProjectContext | null>): onRequestAsyncHookHandler
}

declare module 'fastify' {
  interface FastifyInstance {
    ingestLimits: IngestLimits
  }
}

/**
 * Sets up the gate on `app` as `app.ingestLimits`. The rate is @fastify/rate-limit's, keyed by the project (its
 * ingest key and its DSN share one bucket), counted once the route knows the project: in an onRequest hook (`early`)
 * when the key is in a header or the query, as the SDKs send it, so a refusal reads no body; else by `admit`, after
 * the route authenticated from the JSON body (a beacon posted by hand) or a tunnelled envelope's header. Not the
 * plugin's own route hook, which would have to find the key itself; and a request without a valid key is refused
 * (401/403) without touching any project's bucket.
 */
export async function registerIngestLimits(app: FastifyInstance, serverRate: number): Promise<void> {
  await app.register(rateLimit, { global: false, store: TokenBuckets })
  const projects = new WeakMap<FastifyRequest, ProjectContext>()
  /** Requests already counted against their project's rate (by `early`), which admit does not count again. */
  const counted = new WeakSet<FastifyRequest>()
  const rateOf = (request: FastifyRequest): number => {
    const project = projects.get(request)
    return project?.ingestRateLimit ?? serverRate
  }
  const limiter = app.createRateLimit({
    keyGenerator: (request) => projects.get(request)?.id ?? '',
    allowList: (request) => rateOf(request) === 0,
    max: (request) => rateOf(request) * INGEST_BURST_SECONDS,
  })

  const countRate = async (request: FastifyRequest, project: ProjectContext): Promise<void> => {
    projects.set(request, project)
    counted.add(request)
    const rate = await limiter(request)
    if (!rate.isAllowed && rate.isExceeded) {
      throw new RetryLater('rate_limited', `Project ${project.id} may send ${rateOf(request)} ingest requests a second `
        + `(bursts of ${rate.max}): ${project.ingestRateLimit === null ? 'the server\'s INGEST_RATE_LIMIT' : 'its own rate limit'}. `
        + `Nothing of this request was stored; send it again after ${rate.ttlInSeconds} s (Retry-After).`, rate.ttlInSeconds, 'rate_limited')
    }
  }

  app.decorate<IngestLimits>('ingestLimits', {
    early: (projectOf) => async (request) => {
      const project = await projectOf(request)
      if (project) await countRate(request, project)
    },
    async admit(request, project, events, store) {
      // Counted early under this project; a request whose body names another key (a beacon's) is counted for that one too.
      if (!counted.has(request) || projects.get(request)?.id !== project.id) await countRate(request, project)
      const quota = project.dailyEventQuota
      if (quota === null) return store()
      const now = Date.now()
      if (!await takeQuota(request.server.db, project.id, quota, events, now)) {
        const wait = secondsToNextDay(now)
        throw new RetryLater('rate_limited', `Project ${project.id} has spent its daily quota of ${quota} events for ${toIso(now).slice(0, 10)} (UTC). `
          + `Nothing of this request was stored; send it again after the next UTC midnight, in ${wait} s (Retry-After).`, wait, 'quota_exceeded')
      }
      try {
        return await store()
      } catch (error) {
        await giveBackQuota(request.server.db, project.id, events, now).catch((failed: unknown) => {
          request.log.warn({ err: failed }, 'could not give back quota of a failed ingest request')
        })
        throw error
      }
    },
  })
}
