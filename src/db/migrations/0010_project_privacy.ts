import type { Kysely, Migration } from 'kysely'

/**
 * A project's privacy settings (issue 13): how much of a visitor's IP address it stores (`full`, `truncated` or
 * `none`; null follows the server's IP_STORAGE) and the extra field names masked in request and response bodies
 * (a JSON array; null for none). Applied to what arrives from now on: stored addresses and bodies stay as they are.
 */
export const projectPrivacy = (): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('projects').addColumn('ip_storage', 'text').execute()
    await db.schema.alterTable('projects').addColumn('mask_fields', 'text').execute()
  },
})
