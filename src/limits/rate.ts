import type { FastifyRateLimitStore } from '@fastify/rate-limit'
import { LRUCache } from 'lru-cache'
import { INGEST_BURST_SECONDS } from '../../common/limits.ts'

/** Buckets a process keeps at most: one per project that sent lately, so far more than any service has projects. */
const MAX_BUCKETS = 100_000

/**
 * A token bucket per key, as @fastify/rate-limit's store: `max` is the bucket's size, INGEST_BURST_SECONDS of the
 * rate, and it refills at max / INGEST_BURST_SECONDS tokens a second. The plugin's own store counts in fixed windows,
 * which lets twice the burst through across a window's edge and makes every client wait for the window's end; a bucket
 * holds the rate exactly and tells a refused client the time to its next token. In memory: the rate is per process.
 */
export class TokenBuckets implements FastifyRateLimitStore {
  readonly #buckets = new LRUCache<string, { tokens: number; at: number }>({ max: MAX_BUCKETS })

  incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, _timeWindow: number, max: number): void {
    const now = performance.now()
    const perMs = max / INGEST_BURST_SECONDS / 1000
    const bucket = this.#buckets.get(key)
    const tokens = bucket === undefined ? max : Math.min(max, bucket.tokens + (now - bucket.at) * perMs)
    if (tokens >= 1) {
      this.#buckets.set(key, { tokens: tokens - 1, at: now })
      // The plugin refuses when current > max: taken tokens, at most max.
      callback(null, { current: max - Math.floor(tokens - 1), ttl: 0 })
      return
    }
    this.#buckets.set(key, { tokens, at: now })
    callback(null, { current: max + 1, ttl: Math.ceil((1 - tokens) / perMs) })
  }

  /** One bucket per key whatever the route: the key is the project, which both ingest routes and the Sentry ones share. */
  child(): FastifyRateLimitStore {
    return this
  }
}
