import type { Kysely, Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * Dashboard sign-ins (issue 38): one row per signed-in browser, keyed by the digest of its cookie's random token,
 * so signing out ends it in every process. The expiry index serves the sweep of expired rows.
 */
export const adminSessions = ({ key }: Target): Migration => ({
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
