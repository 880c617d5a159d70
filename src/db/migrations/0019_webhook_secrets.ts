import { randomBytes } from 'node:crypto'
import { sql, type Kysely, type Migration } from 'kysely'

/** A signing secret as the service makes one (src/alerts/sign.ts): `whsec_` and the base64 of 32 random bytes. */
const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`

/**
 * Each webhook's Standard Webhooks signing secret (src/alerts/sign.ts); existing webhooks get one here, which their
 * receivers cannot know: a receiver that verifies needs the webhook added again (docs/api.md says so).
 */
export const webhookSecrets = (): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('webhooks').addColumn('secret', 'text', (c) => c.notNull().defaultTo('')).execute()
    const rows = await sql<{ project_id: string; id: string }>`select project_id, id from webhooks`.execute(db)
    for (const row of rows.rows) {
      await sql`update webhooks set secret = ${newWebhookSecret()} where project_id = ${row.project_id} and id = ${row.id}`.execute(db)
    }
  },
})
