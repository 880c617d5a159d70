import type { Kysely, Migration } from 'kysely'
import type { Target } from './target.ts'

/*
 * Migrations are written once for both engines: only types both understand
 * (text, integer, bigint, double precision) and plain B-tree indexes.
 * Every key leads with project_id so the data can be sharded by project.
 *
 * Identifiers compare byte by byte on both engines: SQLite does by default, and on PostgreSQL
 * key columns are COLLATE "C", so `ORDER BY id` gives the same order whatever the server's locale.
 */
export const initial = ({ key }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('projects')
      .addColumn('id', key, (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('domain', 'text', (c) => c.notNull())
      .addColumn('retention_days', 'integer', (c) => c.notNull())
      .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('api_key_prefix', 'text', (c) => c.notNull())
      .addColumn('ingest_key', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('sessions')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('session_key', key, (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('start_day', 'integer', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('ip', 'text')
      .addColumn('country', 'text')
      .addColumn('user_agent', 'text')
      .addColumn('utm', 'text')
      .addColumn('events_total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('events_errors', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('events_slow', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('recording_chunks', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_seq', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('sessions_pk', ['project_id', 'id'])
      .addUniqueConstraint('sessions_session_key_uq', ['project_id', 'session_key'])
      .execute()
    // The list order, and the retention sweep (oldest last_seen_at first).
    await db.schema.createIndex('sessions_last_seen_idx').on('sessions').columns(['project_id', 'last_seen_at', 'id']).execute()
    // `date=`: one day's sessions already in list order, so LIMIT stops early.
    await db.schema.createIndex('sessions_day_last_seen_idx').on('sessions')
      .columns(['project_id', 'start_day', 'last_seen_at', 'id']).execute()
    // from/to ranges and exact counts of partial days.
    await db.schema.createIndex('sessions_started_idx').on('sessions').columns(['project_id', 'started_at']).execute()

    await db.schema
      .createTable('session_days')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('sessions', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('session_days_pk', ['project_id', 'day'])
      .execute()

    await db.schema
      .createTable('events')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('session_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('url', 'text')
      .addColumn('method', 'text')
      .addColumn('message', 'text')
      .addColumn('stack', 'text')
      .addColumn('status_code', 'integer')
      .addColumn('duration_ms', 'double precision')
      .addColumn('req_body', 'text')
      .addColumn('res_body', 'text')
      .addPrimaryKeyConstraint('events_pk', ['project_id', 'session_id', 'id'])
      .execute()
    await db.schema.createIndex('events_order_idx').on('events')
      .columns(['project_id', 'session_id', 'created_at', 'seq']).execute()
  },
})
