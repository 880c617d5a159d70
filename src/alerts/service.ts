import { MAX_WEBHOOK_URL_LENGTH, WEBHOOK_LOG_SIZE } from '../../common/limits.ts'
import { MAX_WEBHOOKS_PER_PROJECT, WEBHOOK_BACKOFF_BASE_MS, WEBHOOK_BACKOFF_MAX_MS, WEBHOOK_RETRY_FOR_MS } from './limits.ts'
import type { Db } from '../database.ts'
import { invalidBody, notFound } from '../errors.ts'
import { getProject } from '../projects/service.ts'
import { newId } from '../util/ids.ts'
import { toIso } from '../util/time.ts'
import { addressRefusal, literalAddress } from './address.ts'
import type { AlertFacts } from './payload.ts'
import type { AddedWebhook, DeliveryView, WebhookView } from './schema.ts'
import { newWebhookSecret } from './sign.ts'
import * as store from './store.ts'

/**
 * Checks a webhook URL as it is added; returns it normalized. This catches the obvious mistakes early with a
 * message naming them; the check that protects the network runs on every connection (deliver.ts), since a host
 * name may resolve elsewhere tomorrow.
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): string {
  const bad = (problem: string) => invalidBody(`url ${problem}`, 'url')
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) throw bad(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw bad('must be an absolute http:// or https:// URL, such as https://hooks.slack.com/services/…')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad(`must use http or https, not ${url.protocol.replace(/:$/, '')}`)
  if (url.username !== '' || url.password !== '') throw bad('must not carry credentials (user:password@): they would be sent to the receiver in the clear')
  const literal = literalAddress(url.hostname)
  const refusal = literal === null ? null : addressRefusal(literal, allowPrivate)
  if (refusal !== null) throw bad(`is refused: ${refusal}`)
  // RFC 6761: localhost and *.localhost are this machine, whatever DNS says.
  if (!allowPrivate && /(^|\.)localhost\.?$/i.test(url.hostname)) {
    throw bad(`is refused: ${url.hostname} is this machine; webhooks reach only public addresses (WEBHOOK_ALLOW_PRIVATE=true allows others)`)
  }
  return url.href
}

const toView = (row: Omit<store.WebhookRow, 'secret'>): WebhookView => ({ id: row.id, url: row.url, createdAt: toIso(row.created_at) })

/** Adds a webhook with a new signing secret; the answer is the only place the secret is ever shown. */
export async function addWebhook(db: Db, projectId: string, rawUrl: string, opts: { allowPrivate: boolean }, now = Date.now()): Promise<AddedWebhook> {
  const project = await getProject(db, projectId)
  const url = checkWebhookUrl(rawUrl, opts.allowPrivate)
  const existing = await store.listWebhooks(db, project.id)
  const same = existing.find((w) => w.url === url)
  if (same) throw invalidBody(`url is already a webhook of this project (${same.id})`, 'url')
  if (existing.length >= MAX_WEBHOOKS_PER_PROJECT) {
    throw invalidBody(`A project can have at most ${MAX_WEBHOOKS_PER_PROJECT} webhooks; remove one first`, 'url')
  }
  const row: store.WebhookRow = { project_id: project.id, id: newId('wh_', 9), url, secret: newWebhookSecret(), created_at: now }
  await store.insertWebhook(db, row)
  return { ...toView(row), secret: row.secret }
}

export async function listWebhooks(db: Db, projectId: string): Promise<WebhookView[]> {
  const project = await getProject(db, projectId)
  return (await store.listWebhooks(db, project.id)).map(toView)
}

/** Removes a webhook and its delivery log; pending deliveries to it are not sent. */
export async function removeWebhook(db: Db, projectId: string, webhookId: string): Promise<void> {
  const project = await getProject(db, projectId)
  if (!(await store.deleteWebhook(db, project.id, webhookId))) {
    throw notFound(`No webhook "${webhookId}" in project ${project.id}; \`sessionwatch webhook list --project ${project.id}\` shows them`)
  }
}

/** The project's latest WEBHOOK_LOG_SIZE deliveries, newest first, for the dashboard. */
export async function deliveryLog(db: Db, projectId: string): Promise<DeliveryView[]> {
  const project = await getProject(db, projectId)
  const rows = await store.latestDeliveries(db, project.id, WEBHOOK_LOG_SIZE)
  return rows.map((row) => ({
    id: row.id, webhookId: row.webhook_id, kind: row.kind,
    issue: { id: row.issue_id, title: (JSON.parse(row.payload) as AlertFacts).issue.title },
    status: row.status, attempts: row.attempts, lastStatus: row.last_status, lastError: row.last_error,
    createdAt: toIso(row.created_at),
    nextAttemptAt: row.status === 'pending' && row.next_attempt_at !== null ? toIso(row.next_attempt_at) : null,
    deliveredAt: row.delivered_at === null ? null : toIso(row.delivered_at),
  }))
}

/** The waits between attempts and how long a delivery is tried at all (tests shorten them). */
export interface RetryPolicy {
  backoffBaseMs: number
  backoffMaxMs: number
  retryForMs: number
}

export const DEFAULT_RETRY: RetryPolicy = {
  backoffBaseMs: WEBHOOK_BACKOFF_BASE_MS, backoffMaxMs: WEBHOOK_BACKOFF_MAX_MS, retryForMs: WEBHOOK_RETRY_FOR_MS,
}

/** What sending once came to (deliver.ts). */
export type SendResult =
  | { ok: true; status: number }
  | { ok: false; status: number | null; error: string; retry: boolean }

/**
 * The record of an attempt: 2xx is delivered; a failure worth retrying waits backoffBaseMs × 2^(attempt−1), at
 * most backoffMaxMs, and the delivery fails once its next attempt would come later than retryForMs after it was
 * queued; any other failure (a 4xx, a redirect, a refused address) fails it at once.
 */
export function attemptRecord(
  result: SendResult, delivery: Pick<store.DueDelivery, 'attempts' | 'created_at'>, now: number, policy: RetryPolicy,
): store.Attempt {
  if (result.ok) return { status: 'delivered', nextAttemptAt: null, lastStatus: result.status, lastError: null, deliveredAt: now }
  const attempt = delivery.attempts + 1
  const wait = Math.min(policy.backoffBaseMs * 2 ** (attempt - 1), policy.backoffMaxMs)
  const next = now + wait
  const retry = result.retry && next <= delivery.created_at + policy.retryForMs
  return {
    status: retry ? 'pending' : 'failed', nextAttemptAt: retry ? next : null, lastStatus: result.status,
    lastError: result.error === '' ? null : result.error, deliveredAt: null,
  }
}
