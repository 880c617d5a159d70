import type { Kysely, Migration } from 'kysely'

/** Each session's list JSON in its row; its trigger, and the rows' JSON, come after the migrations. */
export const sessionListJson = (): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('sessions').addColumn('list_json', 'text').execute()
  },
})
