/**
 * The only code that reads and writes `webhooks` and `webhook_deliveries`: queueing an alert (inside the ingest
 * transaction that changed the issue), the worker's claim-send-record cycle, the delivery log, and pruning.
 */
import type { Selectable } from 'kysely'
import { WEBHOOK_RATE_LIMIT, WEBHOOK_RATE_WINDOW_MS } from './limits.ts'
import type { Db } from '../database.ts'
import { canMatch } from '../db/sql.ts'
import { inTransaction } from '../db/transaction.ts'
import { deleteProjectRows } from '../db/rows.ts'
import { newId } from '../util/ids.ts'
import { alertFacts, type IssueAlert } from './payload.ts'
import type { DeliveryStatus, WebhookDeliveryTable, WebhookTable } from './table.ts'

export type { IssueAlert } from './payload.ts'
export type { AlertKind } from './table.ts'

/** Why a delivery over the rate limit was never sent, as the delivery log shows it. */
export const RATE_LIMITED = `dropped: over ${WEBHOOK_RATE_LIMIT} alerts of this project in ${WEBHOOK_RATE_WINDOW_MS / 60_000} minutes`

/** Queues one delivery per webhook of the project, in the caller's transaction (so a delivery exists iff the issue change committed). Cheap (one indexed query) when the project has no webhooks. */
export async function enqueueIssueAlert(trx: Db, alert: IssueAlert): Promise<void> {
  const hooks = await trx.selectFrom('webhooks').innerJoin('projects', 'projects.id', 'webhooks.project_id')
    .select(['webhooks.id', 'projects.name']).where('webhooks.project_id', '=', alert.projectId).execute()
  const name = hooks[0]?.name
  if (name === undefined) return
  const now = Date.now()
  // The project's alerts sent in the window, each counted once however many webhooks it went to: every
  // webhook of a project gets the same alerts, and a burst stops for all of them at once.
  const recent = await trx.selectFrom('webhook_deliveries').select(['issue_id', 'kind', 'alert_at']).distinct()
    .where('project_id', '=', alert.projectId).where('created_at', '>', now - WEBHOOK_RATE_WINDOW_MS)
    .where('status', '<>', 'dropped').execute()
  // A flood guard, not a quota: on PostgreSQL two concurrent ingest transactions may both see room for one more.
  const over = recent.length >= WEBHOOK_RATE_LIMIT
  const payload = JSON.stringify(alertFacts(alert, name))
  const rows = hooks.map((hook): Selectable<WebhookDeliveryTable> => {
    return {
      project_id: alert.projectId, id: newId('d_', 12), webhook_id: hook.id, issue_id: alert.issue.id, kind: alert.kind,
      alert_at: alert.at, payload, status: over ? 'dropped' : 'pending', attempts: 0, next_attempt_at: over ? null : now,
      last_status: null, last_error: over ? RATE_LIMITED : null, created_at: now, delivered_at: null,
    }
  })
  // The same alert queued again (a retried transaction) hits the unique key and changes nothing.
  await trx.insertInto('webhook_deliveries').values(rows)
    .onConflict((oc) => oc.columns(['project_id', 'webhook_id', 'issue_id', 'kind', 'alert_at']).doNothing()).execute()
}

// --- Webhooks ---

export type WebhookRow = Selectable<WebhookTable>

export async function insertWebhook(db: Db, row: WebhookRow): Promise<void> {
  await db.insertInto('webhooks').values(row).execute()
}

/** A project's webhooks, without their secrets: those are shown once, when added. */
export function listWebhooks(db: Db, projectId: string): Promise<Omit<WebhookRow, 'secret'>[]> {
  return db.selectFrom('webhooks').select(['project_id', 'id', 'url', 'created_at'])
    .where('project_id', '=', projectId).orderBy('created_at').orderBy('id').execute()
}

/** Removes a webhook with its deliveries, pending ones included (they are not sent); false when there was none. */
export async function deleteWebhook(db: Db, projectId: string, id: string): Promise<boolean> {
  if (!canMatch(id)) return false
  return inTransaction(db, async (trx) => {
    await trx.deleteFrom('webhook_deliveries').where('project_id', '=', projectId).where('webhook_id', '=', id).execute()
    const result = await trx.deleteFrom('webhooks').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
    return result.numDeletedRows > 0n
  })
}

// --- Deliveries ---

export type DeliveryRow = Selectable<WebhookDeliveryTable>
/** Names one delivery. */
export type DeliveryKey = Pick<DeliveryRow, 'project_id' | 'id'>

/** A pending delivery that is due, with what sending it takes. */
export interface DueDelivery extends DeliveryKey {
  /** As read: the claim succeeds only if it is still this. */
  next_attempt_at: number
  attempts: number
  created_at: number
  payload: string
  url: string
  /** The webhook's signing secret. */
  secret: string
}

/** Pending deliveries of every project whose time has come, oldest first (webhook_deliveries_due_idx). */
export function dueDeliveries(db: Db, now: number, limit: number): Promise<DueDelivery[]> {
  return db.selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', (join) => join.onRef('w.project_id', '=', 'd.project_id').onRef('w.id', '=', 'd.webhook_id'))
    .select(['d.project_id', 'd.id', 'd.next_attempt_at', 'd.attempts', 'd.created_at', 'd.payload', 'w.url', 'w.secret'])
    .where('d.status', '=', 'pending').where('d.next_attempt_at', '<=', now)
    .orderBy('d.next_attempt_at').limit(limit)
    .$narrowType<{ next_attempt_at: number }>().execute()
}

/**
 * Takes a due delivery for this process until `leaseUntil`: a compare-and-set on next_attempt_at, so of several
 * processes that read it due, exactly one claims it. True when this one did.
 */
export async function claimDelivery(db: Db, due: DueDelivery, leaseUntil: number): Promise<boolean> {
  const result = await db.updateTable('webhook_deliveries').set({ next_attempt_at: leaseUntil })
    .where('project_id', '=', due.project_id).where('id', '=', due.id)
    .where('status', '=', 'pending').where('next_attempt_at', '=', due.next_attempt_at).executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/** What one attempt came to. */
export interface Attempt {
  status: Exclude<DeliveryStatus, 'dropped'>
  /** Pending: when to try again. */
  nextAttemptAt: number | null
  lastStatus: number | null
  lastError: string | null
  deliveredAt: number | null
}

/**
 * Records an attempt of a delivery this process claimed until `leaseUntil`. A process whose lease ran out (and
 * whose delivery another process took over) records nothing: false.
 */
export async function recordAttempt(db: Db, key: DeliveryKey, leaseUntil: number, attempt: Attempt): Promise<boolean> {
  const result = await db.updateTable('webhook_deliveries')
    .set((eb) => ({
      status: attempt.status, attempts: eb('attempts', '+', 1), next_attempt_at: attempt.nextAttemptAt,
      last_status: attempt.lastStatus, last_error: attempt.lastError, delivered_at: attempt.deliveredAt,
    }))
    .where('project_id', '=', key.project_id).where('id', '=', key.id)
    .where('status', '=', 'pending').where('next_attempt_at', '=', leaseUntil).executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/** Gives a claimed delivery back unsent (the service is stopping), due at `now`: no process waits out the lease. */
export async function releaseClaim(db: Db, key: DeliveryKey, leaseUntil: number, now: number): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ next_attempt_at: now })
    .where('project_id', '=', key.project_id).where('id', '=', key.id)
    .where('status', '=', 'pending').where('next_attempt_at', '=', leaseUntil).execute()
}

/** The project's latest deliveries, newest first (webhook_deliveries_log_idx). */
export function latestDeliveries(db: Db, projectId: string, limit: number): Promise<DeliveryRow[]> {
  return db.selectFrom('webhook_deliveries').selectAll().where('project_id', '=', projectId)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()
}

/**
 * Deletes the project's deliveries queued before `cutoff` (its retention): their payloads hold visitor text
 * (issue titles), which lives no longer than the sessions it came from. Returns how many.
 */
export async function deleteDeliveriesBefore(db: Db, projectId: string, cutoff: number): Promise<number> {
  const result = await db.deleteFrom('webhook_deliveries')
    .where('project_id', '=', projectId).where('created_at', '<', cutoff).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Deletes a project's webhooks with their deliveries, pending ones included, when the project is deleted. */
export const forgetProject = (trx: Db, projectId: string): Promise<void> =>
  deleteProjectRows(trx, ['webhook_deliveries', 'webhooks'], projectId)
