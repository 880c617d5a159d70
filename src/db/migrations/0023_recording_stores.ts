import { sql, type Kysely, type Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * Recordings out of the database: the stores chunks live in (`recording_stores`, one row per RECORDINGS_URL ever
 * used), each chunk's store and object key (a chunk with neither keeps its data inline, as before), the objects
 * whose metadata is gone and that wait to be deleted from their store (`recording_trash`), what budgets evicted from a
 * visit, how it was recorded, a project's recording budget, and its recording bytes counted (`recording_usage`: a
 * budget is checked every few seconds, and summing a million sessions' bytes takes half a second).
 */
export const recordingStores = ({ key }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('recording_stores')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('url', 'text', (c) => c.notNull().unique())
      .execute()
    await db.schema.alterTable('recording_chunks').addColumn('store_id', 'integer').execute()
    await db.schema.alterTable('recording_chunks').addColumn('blob', key).execute()
    await db.schema
      .createTable('recording_trash')
      .addColumn('store_id', 'integer', (c) => c.notNull())
      .addColumn('blob', key, (c) => c.notNull())
      .addColumn('trashed_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('recording_trash_pk', ['store_id', 'blob'])
      .execute()
    await db.schema.alterTable('sessions')
      .addColumn('recording_evicted', 'bigint', (c) => c.notNull().defaultTo(0)).execute()
    await db.schema.alterTable('sessions').addColumn('recording_mode', 'text').execute()
    await db.schema.alterTable('projects').addColumn('recording_budget', 'bigint').execute()
    await db.schema
      .createTable('recording_usage')
      .addColumn('project_id', key, (c) => c.primaryKey())
      .addColumn('bytes', 'bigint', (c) => c.notNull())
      .addColumn('evicted_bytes', 'bigint', (c) => c.notNull())
      .addColumn('evicted_visits', 'bigint', (c) => c.notNull())
      .execute()
    await sql`insert into recording_usage (project_id, bytes, evicted_bytes, evicted_visits)
      select project_id, sum(recording_bytes), 0, 0 from sessions group by project_id having sum(recording_bytes) > 0`.execute(db)
  },
})
