import type { Kysely, Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * Screen recordings: compressed rrweb chunks stored beside the session, and the session's
 * stored-bytes and dropped-chunk counters that the per-session limit is checked against.
 * A dropped chunk keeps its row without data, so a retried chunk is recognized and counted once.
 */
export const recording = ({ key, blob: bytes }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('recording_chunks')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('session_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('ended_at', 'bigint', (c) => c.notNull())
      .addColumn('events', 'integer', (c) => c.notNull())
      .addColumn('full_snapshot', 'integer', (c) => c.notNull())
      .addColumn('bytes', 'integer', (c) => c.notNull())
      .addColumn('data', bytes)
      .addColumn('dropped', 'text')
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('recording_chunks_pk', ['project_id', 'session_id', 'id'])
      .execute()
    await db.schema.alterTable('sessions')
      .addColumn('recording_bytes', 'bigint', (c) => c.notNull().defaultTo(0)).execute()
    await db.schema.alterTable('sessions')
      .addColumn('recording_dropped', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  },
})
