import type { Kysely, Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * Rage clicks, dead clicks and Core Web Vitals. Their events' own fields (selector, text, count; name, value, rating,
 * element) go together as JSON in `events.detail`, null for every other type. The pages report reads counters kept
 * at ingest: `page_days` counts a page template's views, errors, rage and dead clicks per UTC day, and `page_vitals`
 * counts its vitals' values per day, metric and bucket (the value rounded up to two significant digits).
 */
export const pages = ({ key }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('events').addColumn('detail', 'text').execute()
    await db.schema
      .createTable('page_days')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('page', key, (c) => c.notNull())
      .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('errors', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('rage_clicks', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('dead_clicks', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('page_days_pk', ['project_id', 'day', 'page'])
      .execute()
    await db.schema
      .createTable('page_vitals')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('page', key, (c) => c.notNull())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('bucket', 'double precision', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('page_vitals_pk', ['project_id', 'day', 'page', 'metric', 'bucket'])
      .execute()
  },
})
