import { sql, type Kysely, type Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * Issues: ERROR and HTTP_ERROR events grouped across visits. Several fingerprints may point to one
 * issue (a stack fingerprinted before and after its source map arrived, a new grouping version), so
 * the fingerprint table maps many to one. issue_sessions links an issue to each visit that hit it,
 * with that visit's event count, so the counters stay exact when retention deletes the visit.
 * issue_totals counts a project's issues per status, so the list's total needs no count(*).
 */
export const issues = ({ key }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('issues')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('grouping_version', 'integer', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('culprit', 'text')
      .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('events', 'integer', (c) => c.notNull())
      .addColumn('sessions', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('resolved_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('issues_pk', ['project_id', 'id'])
      .execute()
    await db.schema.createIndex('issues_seen_idx').on('issues').columns(['project_id', 'last_seen_at', 'id']).execute()
    await db.schema.createIndex('issues_status_seen_idx').on('issues')
      .columns(['project_id', 'status', 'last_seen_at', 'id']).execute()
    await db.schema
      .createTable('issue_fingerprints')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('fingerprint', key, (c) => c.notNull())
      .addColumn('grouping_version', 'integer', (c) => c.notNull())
      .addColumn('issue_id', key, (c) => c.notNull())
      .addPrimaryKeyConstraint('issue_fingerprints_pk', ['project_id', 'fingerprint'])
      .execute()
    await db.schema.createIndex('issue_fingerprints_issue_idx').on('issue_fingerprints')
      .columns(['project_id', 'issue_id']).execute()
    await db.schema
      .createTable('issue_sessions')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('issue_id', key, (c) => c.notNull())
      .addColumn('session_id', key, (c) => c.notNull())
      .addColumn('events', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('issue_sessions_pk', ['project_id', 'issue_id', 'session_id'])
      .execute()
    await db.schema.createIndex('issue_sessions_session_idx').on('issue_sessions')
      .columns(['project_id', 'session_id']).execute()
    await db.schema
      .createTable('issue_totals')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('issues', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('issue_totals_pk', ['project_id', 'status'])
      .execute()
    await db.schema.alterTable('events').addColumn('fingerprint', 'text').execute()
    await db.schema.alterTable('events').addColumn('issue_id', key).execute()
    // Partial: only grouped events, so visits without errors pay nothing for it. Serves an issue's latest event.
    await db.schema.createIndex('events_issue_idx').on('events')
      .columns(['project_id', 'issue_id', 'created_at']).where(sql.ref('issue_id'), 'is not', sql.lit(null)).execute()
  },
})
