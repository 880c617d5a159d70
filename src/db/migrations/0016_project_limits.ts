import type { Kysely, Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * Fair limits on ingest (issue 38): a project's own rate limit (requests per second; null follows INGEST_RATE_LIMIT,
 * 0 is none) and daily event quota (null: none), and the events its quota has counted per UTC day, one row per
 * project and day, taken atomically by every process (src/limits/quota.ts).
 */
export const projectLimits = ({ key }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('projects').addColumn('ingest_rate_limit', 'integer').execute()
    await db.schema.alterTable('projects').addColumn('daily_event_quota', 'bigint').execute()
    await db.schema
      .createTable('quota_days')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('events', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('quota_days_pk', ['project_id', 'day'])
      .execute()
  },
})
