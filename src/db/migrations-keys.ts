import type { Kysely, Migration, RawBuilder } from 'kysely'

/*
 * The migrations of who may do what (issue 38): dashboard sign-ins kept server-side, and the upload key.
 */

/**
 * Upload keys (issue 38): a third project key, secret and stored as a SHA-256 digest like the API key, that only
 * uploads source maps, so the API key only reads. Null for existing projects: a key stored hashed cannot be made
 * here and shown later, so their owners create one (`project rotate-key --upload`, or the dashboard's API tab).
 */
const uploadKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('projects').addColumn('upload_key_hash', 'text').execute()
    await db.schema.alterTable('projects').addColumn('upload_key_prefix', 'text').execute()
    await db.schema.createIndex('projects_upload_key_uq').unique().on('projects').column('upload_key_hash').execute()
  },
}

/**
 * Dashboard sign-ins (issue 38): one row per signed-in browser, keyed by the digest of its cookie's random token,
 * so signing out ends it in every process. The expiry index serves the sweep of expired rows.
 */
const adminSessions = (key: RawBuilder<unknown>): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('admin_sessions')
      .addColumn('token_hash', key, (c) => c.primaryKey())
      .addColumn('password_tag', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('admin_sessions_expires_idx').on('admin_sessions').column('expires_at').execute()
  },
})

/** 0017 and 0018, in the one list of src/db/migrations.ts. */
export const keyMigrations = (key: RawBuilder<unknown>): Record<string, Migration> => ({
  '0017_upload_keys': uploadKeys,
  '0018_admin_sessions': adminSessions(key),
})
