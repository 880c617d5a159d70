import type { Kysely, Migration } from 'kysely'

/**
 * Upload keys (issue 38): a third project key, secret and stored as a SHA-256 digest like the API key, that only
 * uploads source maps, so the API key only reads. Null for existing projects: a key stored hashed cannot be made
 * here and shown later, so their owners create one (`project rotate-key --upload`, or the dashboard's API tab).
 */
export const uploadKeys = (): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('projects').addColumn('upload_key_hash', 'text').execute()
    await db.schema.alterTable('projects').addColumn('upload_key_prefix', 'text').execute()
    await db.schema.createIndex('projects_upload_key_uq').unique().on('projects').column('upload_key_hash').execute()
  },
})
