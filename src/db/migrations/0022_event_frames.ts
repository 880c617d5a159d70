import type { Kysely, Migration } from 'kysely'

/** The frames a server Sentry SDK sends structured (src/contract/event.ts SdkFrames), as JSON beside the stack's text. */
export const eventFrames = (): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('events').addColumn('frames', 'text').execute()
  },
})
