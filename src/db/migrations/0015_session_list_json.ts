import type { Kysely, Migration } from 'kysely'

/** Each session's list JSON in its row, written by triggers the service kept; 0020 drops it. */
export const sessionListJson = (): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('sessions').addColumn('list_json', 'text').execute()
  },
})
