import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * Rage clicks, dead clicks and Core Web Vitals. Their events' own fields (selector, text, count; name, value, rating,
 * element) go together as JSON in `events.detail`, null for every other type. The pages report reads counters kept
 * at ingest: `page_days` counts a page template's views, errors, rage and dead clicks and vitals per UTC day, and
 * `page_vitals` counts its vitals' values per day, metric and bucket (the value rounded up to a step of
 * 1, 1.2, 1.5, … 9 times a power of ten). `page_totals` and `page_vital_totals` hold the same counts summed over every stored day, so a report of
 * the whole retention reads one row per page and bucket instead of one per day.
 */
export const pages = ({ engine, key }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('events').addColumn('detail', 'text').execute()
    // Small rows read by their key: a WITHOUT ROWID table on SQLite holds them in the key's own b-tree.
    const compact = <T extends string, C extends string>(t: CreateTableBuilder<T, C>) => (engine === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t)
    const counters = <T extends string, C extends string>(t: CreateTableBuilder<T, C>) => t
      .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('errors', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('rage_clicks', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('dead_clicks', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('vitals', 'integer', (c) => c.notNull().defaultTo(0))
    await db.schema.createTable('page_days')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('page', key, (c) => c.notNull())
      .$call(counters)
      .addPrimaryKeyConstraint('page_days_pk', ['project_id', 'day', 'page'])
      .$call(compact)
      .execute()
    await db.schema.createTable('page_totals')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('page', key, (c) => c.notNull())
      .$call(counters)
      .addPrimaryKeyConstraint('page_totals_pk', ['project_id', 'page'])
      .$call(compact)
      .execute()
    // Metric before page: sorting by one metric's p75 reads that metric's rows alone.
    await db.schema.createTable('page_vitals')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('metric', key, (c) => c.notNull())
      .addColumn('page', key, (c) => c.notNull())
      .addColumn('bucket', 'double precision', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('page_vitals_pk', ['project_id', 'day', 'metric', 'page', 'bucket'])
      .$call(compact)
      .execute()
    await db.schema.createTable('page_vital_totals')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('metric', key, (c) => c.notNull())
      .addColumn('page', key, (c) => c.notNull())
      .addColumn('bucket', 'double precision', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('page_vital_totals_pk', ['project_id', 'metric', 'page', 'bucket'])
      .$call(compact)
      .execute()
  },
})
