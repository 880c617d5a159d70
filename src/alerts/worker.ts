import type { FastifyInstance } from 'fastify'
import type { LookupFunction } from 'node:net'
import { WEBHOOK_BATCH, WEBHOOK_LEASE_MS, WEBHOOK_POLL_MS, WEBHOOK_TIMEOUT_MS } from './limits.ts'
import { startPeriodic } from '../util/periodic.ts'
import { createSender } from './deliver.ts'
import { renderBody, type AlertFacts } from './payload.ts'
import { signedHeaders } from './sign.ts'
import { attemptRecord, DEFAULT_RETRY, type RetryPolicy } from './service.ts'
import { claimDelivery, dueDeliveries, recordAttempt, releaseClaim, type DueDelivery } from './store.ts'

/** The worker's timings and DNS, for tests: production takes the defaults of common/limits.ts. */
export interface WebhookWorkerOptions extends Partial<RetryPolicy> {
  pollMs?: number
  timeoutMs?: number
  leaseMs?: number
  /** Resolves webhook host names instead of dns.lookup (a test's DNS-rebinding host, say). */
  lookup?: LookupFunction
}

const USER_AGENT = 'Sessionwatch-Webhook/1'

/**
 * Sends due webhook deliveries from inside the service, every pollMs, never on the ingest path. Every process
 * runs one: each delivery is claimed by exactly one of them (store.claimDelivery), and one whose process died
 * is taken over once its lease runs out; pending deliveries are rows, so they survive restarts. A database
 * outage is logged once per episode by the database status, and the next poll tries again. Returns a stop
 * function: it aborts the requests in flight and hands their deliveries back, due at once, before the database
 * closes.
 */
export function startWebhookWorker(app: FastifyInstance, options: WebhookWorkerOptions = {}): () => Promise<void> {
  const policy: RetryPolicy = {
    backoffBaseMs: options.backoffBaseMs ?? DEFAULT_RETRY.backoffBaseMs,
    backoffMaxMs: options.backoffMaxMs ?? DEFAULT_RETRY.backoffMaxMs,
    retryForMs: options.retryForMs ?? DEFAULT_RETRY.retryForMs,
  }
  const leaseMs = options.leaseMs ?? WEBHOOK_LEASE_MS
  const sender = createSender({
    allowPrivate: app.config.webhooks.allowPrivate, timeoutMs: options.timeoutMs ?? WEBHOOK_TIMEOUT_MS, lookup: options.lookup,
  })
  const failed = (error: unknown): void => {
    if (app.databaseStatus.failed(error) === null) app.log.error({ err: error }, 'webhook worker failed')
  }

  const deliver = async (due: DueDelivery, leaseUntil: number, signal: AbortSignal): Promise<void> => {
    const body = renderBody(JSON.parse(due.payload) as AlertFacts, app.config.publicUrl)
    // Standard Webhooks' headers, signed with the webhook's secret: the id stays the same on every attempt, so a
    // receiver can drop repeats; the timestamp is this attempt's, so it can refuse an old one replayed.
    const headers = { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signedHeaders(due.secret, due.id, body, Date.now()) }
    const result = await sender.send(due.url, body, headers, signal)
    if (signal.aborted) {
      await releaseClaim(app.db, due, leaseUntil, Date.now())
      return
    }
    const attempt = attemptRecord(result, due, Date.now(), policy)
    if (!(await recordAttempt(app.db, due, leaseUntil, attempt))) return
    // The URL stays out of the log: a chat webhook's URL is its secret.
    const facts = { delivery: due.id, project: due.project_id, host: new URL(due.url).host, status: result.status }
    if (attempt.status === 'delivered') app.log.info(facts, 'webhook delivered')
    else app.log.warn({ ...facts, error: attempt.lastError, retryAt: attempt.nextAttemptAt }, `webhook delivery ${attempt.status === 'failed' ? 'failed' : 'will be retried'}`)
  }

  /** Claims and sends one batch of due deliveries; true when there may be more due. */
  const poll = async (signal: AbortSignal): Promise<boolean> => {
    const now = Date.now()
    const due = await dueDeliveries(app.db, now, WEBHOOK_BATCH)
    app.databaseStatus.reachable()
    const leaseUntil = now + leaseMs
    const claimed: DueDelivery[] = []
    for (const delivery of due) if (await claimDelivery(app.db, delivery, leaseUntil)) claimed.push(delivery)
    await Promise.all(claimed.map((delivery) => deliver(delivery, leaseUntil, signal).catch(failed)))
    return due.length === WEBHOOK_BATCH
  }

  const worker = startPeriodic(options.pollMs ?? WEBHOOK_POLL_MS, async (signal) => {
    // A full batch leaves more due: go on at once rather than a poll interval later.
    let more = true
    while (more && !signal.aborted) more = await poll(signal)
  }, failed)
  app.addHook('onReady', () => { worker.tick() })
  return async () => {
    await worker.stop()
    sender.close()
  }
}
