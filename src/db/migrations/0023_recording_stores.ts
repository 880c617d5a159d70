import type { Kysely, Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * Recordings out of the database: the stores chunks live in (`recording_stores`, one row per RECORDINGS_URL ever
 * used), each chunk's store and object key (a chunk with neither keeps its data inline, as before), the objects
 * whose metadata is gone and that wait to be deleted from their store (`recording_trash`), what budgets evicted from a
 * visit, how it was recorded, and a project's recording budget.
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
  },
})
