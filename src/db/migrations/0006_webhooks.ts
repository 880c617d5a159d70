import type { Kysely, Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * Webhook alerts: where a project's alerts go, and every delivery with its attempts (the worker's queue and the
 * dashboard's delivery log in one). The unique key names an alert to a webhook, so queueing it twice (a retried
 * ingest transaction) changes nothing.
 */
export const webhooks = ({ key }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhooks')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('webhooks_pk', ['project_id', 'id'])
      .execute()
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('webhook_id', key, (c) => c.notNull())
      .addColumn('issue_id', key, (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('alert_at', 'bigint', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint')
      .addColumn('last_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('delivered_at', 'bigint')
      .addPrimaryKeyConstraint('webhook_deliveries_pk', ['project_id', 'id'])
      .addUniqueConstraint('webhook_deliveries_alert_uq', ['project_id', 'webhook_id', 'issue_id', 'kind', 'alert_at'])
      .execute()
    // The delivery log (newest first), the rate limit's count and the retention sweep.
    await db.schema.createIndex('webhook_deliveries_log_idx').on('webhook_deliveries')
      .columns(['project_id', 'created_at', 'id']).execute()
    // The worker's queue: due pending deliveries of every project, oldest first. Not led by project_id, unlike
    // every other key: one query serves all projects, and the pending rows are few.
    await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries')
      .columns(['status', 'next_attempt_at']).execute()
  },
})
