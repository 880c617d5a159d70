import { sql, type Kysely, type Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * Release health, counted at ingest. release_units holds what each counted thing added (a Sentry session by sid,
 * a bucket of a Sentry aggregate, one of our SDK's visits), so an update, a resend, retention or erasure moves the
 * counters by exactly that. releases, release_users and release_days are the counters the reads use. An issue
 * remembers the release and environment of its first event; issue_release_totals counts them per release.
 */
export const releaseHealth = ({ key }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('release_units')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('unit', key, (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('release', key, (c) => c.notNull())
      .addColumn('environment', key, (c) => c.notNull())
      .addColumn('user_key', key)
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('seen_at', 'bigint', (c) => c.notNull())
      .addColumn('sessions', 'integer', (c) => c.notNull())
      .addColumn('errored', 'integer', (c) => c.notNull())
      .addColumn('crashed', 'integer', (c) => c.notNull())
      .addColumn('abnormal', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('release_units_pk', ['project_id', 'unit'])
      .execute()
    await db.schema.createIndex('release_units_seen_idx').on('release_units').columns(['project_id', 'source', 'seen_at']).execute()
    await db.schema.createIndex('release_units_user_idx').on('release_units').columns(['project_id', 'user_key']).execute()
    await db.schema
      .createTable('releases')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('release', key, (c) => c.notNull())
      .addColumn('environment', key, (c) => c.notNull())
      .addColumn('sessions', 'integer', (c) => c.notNull())
      .addColumn('errored', 'integer', (c) => c.notNull())
      .addColumn('crashed', 'integer', (c) => c.notNull())
      .addColumn('abnormal', 'integer', (c) => c.notNull())
      .addColumn('users', 'integer', (c) => c.notNull())
      .addColumn('crashed_users', 'integer', (c) => c.notNull())
      .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('releases_pk', ['project_id', 'release', 'environment'])
      .execute()
    await db.schema.createIndex('releases_first_seen_idx').on('releases')
      .columns(['project_id', 'first_seen_at', 'release', 'environment']).execute()
    await db.schema
      .createTable('release_users')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('release', key, (c) => c.notNull())
      .addColumn('environment', key, (c) => c.notNull())
      .addColumn('user_key', key, (c) => c.notNull())
      .addColumn('sessions', 'integer', (c) => c.notNull())
      .addColumn('crashed', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('release_users_pk', ['project_id', 'release', 'environment', 'user_key'])
      .execute()
    await db.schema
      .createTable('release_days')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('release', key, (c) => c.notNull())
      .addColumn('environment', key, (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('sessions', 'integer', (c) => c.notNull())
      .addColumn('errored', 'integer', (c) => c.notNull())
      .addColumn('crashed', 'integer', (c) => c.notNull())
      .addColumn('abnormal', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('release_days_pk', ['project_id', 'release', 'environment', 'day'])
      .execute()
    await db.schema
      .createTable('issue_release_totals')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('release', key, (c) => c.notNull())
      .addColumn('environment', key, (c) => c.notNull())
      .addColumn('issues', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('issue_release_totals_pk', ['project_id', 'release', 'environment'])
      .execute()
    await db.schema.alterTable('issues').addColumn('release', key).execute()
    await db.schema.alterTable('issues').addColumn('environment', key).execute()
    // Partial: only issues with a release are in it, so no query of the issues list can take it for theirs.
    await db.schema.createIndex('issues_release_idx').on('issues').columns(['project_id', 'release', 'environment', 'first_seen_at'])
      .where(sql.ref('release'), 'is not', null).execute()
  },
})
