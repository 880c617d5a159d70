import { sql, type Kysely, type Migration } from 'kysely'
import type { Target } from './target.ts'

/** A UTC day in milliseconds: issue_days.day is an instant divided by it. */
const DAY_MS = 86_400_000

/**
 * Issues read without an index on events. The partial index events_issue_idx (project, issue, time) served
 * an issue's latest event and its events per day, but it took one B-tree entry per grouped event on the
 * ingest path, which measured ~8% of SQLite's ingest CPU. Instead: the issue row points at its latest
 * event (kept by the per-group issue UPDATE), and issue_days counts its events per UTC day (one row per
 * issue and day, upserted once per group commit). Issue–visit links lose their event counts and their
 * index by visit: retention and erasure count a deleted visit's issue events from the events themselves,
 * which they read anyway, so a link is written once, when the visit first hits the issue. Existing data is
 * carried over before the index goes.
 */
export const issueReads = ({ key }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('issue_days')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('issue_id', key, (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('events', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('issue_days_pk', ['project_id', 'issue_id', 'day'])
      .execute()
    const day = sql`created_at / ${sql.lit(DAY_MS)}`
    await sql`insert into issue_days (project_id, issue_id, day, events)
      select project_id, issue_id, ${day}, count(*) from events where issue_id is not null group by project_id, issue_id, ${day}`
      .execute(db)
    await db.schema.alterTable('issues').addColumn('last_session_id', key).execute()
    await db.schema.alterTable('issues').addColumn('last_event_id', key).execute()
    const latest = (column: string) => sql`(select e.${sql.ref(column)} from events e
      where e.project_id = issues.project_id and e.issue_id = issues.id order by e.created_at desc, e.seq desc limit 1)`
    await sql`update issues set last_session_id = ${latest('session_id')}, last_event_id = ${latest('id')}`.execute(db)
    await db.schema.dropIndex('events_issue_idx').execute()
    await db.schema.dropIndex('issue_sessions_session_idx').execute()
    await db.schema.alterTable('issue_sessions').dropColumn('events').execute()
  },
})
