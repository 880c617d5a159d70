import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { INGEST_BURST_SECONDS } from '../../common/limits.ts'
import { RetryLater } from '../errors.ts'
import type { ProjectContext } from '../projects/service.ts'
import { toIso } from '../shared/time.ts'
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
}

declare module 'fastify' {
  interface FastifyInstance {
    ingestLimits: IngestLimits
  }
}

/**
 * Sets up the gate on `app` as `app.ingestLimits`. The rate is @fastify/rate-limit's, keyed by the project (its
 * ingest key and its DSN share one bucket), run by the routes right after they authenticate rather than as a hook:
 * the key may be in the query, a header, the JSON body of a beacon or a tunnelled envelope's header, which only the
 * route reads, and a request without a valid key is refused (401/403) without touching any project's bucket.
 */
export async function registerIngestLimits(app: FastifyInstance, serverRate: number): Promise<void> {
  await app.register(rateLimit, { global: false, store: TokenBuckets })
  const projects = new WeakMap<FastifyRequest, ProjectContext>()
  const rateOf = (request: FastifyRequest): number => {
    const project = projects.get(request)
    return project?.ingestRateLimit ?? serverRate
  }
  const limiter = app.createRateLimit({
    keyGenerator: (request) => projects.get(request)?.id ?? '',
    allowList: (request) => rateOf(request) === 0,
    max: (request) => rateOf(request) * INGEST_BURST_SECONDS,
  })

  app.decorate<IngestLimits>('ingestLimits', {
    async admit(request, project, events, store) {
      projects.set(request, project)
      const rate = await limiter(request)
      if (!rate.isAllowed && rate.isExceeded) {
        throw new RetryLater('rate_limited', `Project ${project.id} may send ${rateOf(request)} ingest requests a second `
          + `(bursts of ${rate.max}): ${project.ingestRateLimit === null ? 'the server\'s INGEST_RATE_LIMIT' : 'its own rate limit'}. `
          + `Nothing of this request was stored; send it again after ${rate.ttlInSeconds} s (Retry-After).`, rate.ttlInSeconds, 'rate_limited')
      }
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
