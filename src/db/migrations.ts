import { sql, type Kysely, type Migration, type MigrationProvider, type RawBuilder } from 'kysely'
import type { Engine } from '../config.ts'
import { DAY_MS } from '../util/time.ts'
import { PROJECTS_CHANNEL } from './changes.ts'
import { listJsonMigrations, termBits, textIndexPending, visitSearch } from './migrations-search.ts'
import { keyMigrations } from './migrations-keys.ts'
import { projectLimits } from './migrations-limits.ts'
import { dsnKeyOf } from '../projects/keys.ts'
import { webhookSecrets } from './migrations-webhooks.ts'

/*
 * Migrations are written once for both engines: only types both understand
 * (text, integer, bigint, double precision) and plain B-tree indexes.
 * Every key leads with project_id so the data can be sharded by project.
 *
 * Identifiers compare byte by byte on both engines: SQLite does by default, and on PostgreSQL
 * key columns are COLLATE "C", so `ORDER BY id` gives the same order whatever the server's locale.
 */
const initial = (key: RawBuilder<unknown>): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('projects')
      .addColumn('id', key, (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('domain', 'text', (c) => c.notNull())
      .addColumn('retention_days', 'integer', (c) => c.notNull())
      .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('api_key_prefix', 'text', (c) => c.notNull())
      .addColumn('ingest_key', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('sessions')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('session_key', key, (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('start_day', 'integer', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('ip', 'text')
      .addColumn('country', 'text')
      .addColumn('user_agent', 'text')
      .addColumn('utm', 'text')
      .addColumn('events_total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('events_errors', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('events_slow', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('recording_chunks', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_seq', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('sessions_pk', ['project_id', 'id'])
      .addUniqueConstraint('sessions_session_key_uq', ['project_id', 'session_key'])
      .execute()
    // The list order, and the retention sweep (oldest last_seen_at first).
    await db.schema.createIndex('sessions_last_seen_idx').on('sessions').columns(['project_id', 'last_seen_at', 'id']).execute()
    // `date=`: one day's sessions already in list order, so LIMIT stops early.
    await db.schema.createIndex('sessions_day_last_seen_idx').on('sessions')
      .columns(['project_id', 'start_day', 'last_seen_at', 'id']).execute()
    // from/to ranges and exact counts of partial days.
    await db.schema.createIndex('sessions_started_idx').on('sessions').columns(['project_id', 'started_at']).execute()

    await db.schema
      .createTable('session_days')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('sessions', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('session_days_pk', ['project_id', 'day'])
      .execute()

    await db.schema
      .createTable('events')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('session_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('url', 'text')
      .addColumn('method', 'text')
      .addColumn('message', 'text')
      .addColumn('stack', 'text')
      .addColumn('status_code', 'integer')
      .addColumn('duration_ms', 'double precision')
      .addColumn('req_body', 'text')
      .addColumn('res_body', 'text')
      .addPrimaryKeyConstraint('events_pk', ['project_id', 'session_id', 'id'])
      .execute()
    await db.schema.createIndex('events_order_idx').on('events')
      .columns(['project_id', 'session_id', 'created_at', 'seq']).execute()
  },
})

/** Service-wide facts that must be claimed once across processes (e.g. the first-run project). */
const meta = (key: RawBuilder<unknown>): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('meta')
      .addColumn('key', key, (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute()
  },
})

/**
 * Screen recordings: compressed rrweb chunks stored beside the session, and the session's
 * stored-bytes and dropped-chunk counters that the per-session limit is checked against.
 * A dropped chunk keeps its row without data, so a retried chunk is recognized and counted once.
 */
const recording = (key: RawBuilder<unknown>, bytes: RawBuilder<unknown>): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('recording_chunks')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('session_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('ended_at', 'bigint', (c) => c.notNull())
      .addColumn('events', 'integer', (c) => c.notNull())
      .addColumn('full_snapshot', 'integer', (c) => c.notNull())
      .addColumn('bytes', 'integer', (c) => c.notNull())
      .addColumn('data', bytes)
      .addColumn('dropped', 'text')
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('recording_chunks_pk', ['project_id', 'session_id', 'id'])
      .execute()
    await db.schema.alterTable('sessions')
      .addColumn('recording_bytes', 'bigint', (c) => c.notNull().defaultTo(0)).execute()
    await db.schema.alterTable('sessions')
      .addColumn('recording_dropped', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  },
})

/**
 * The dashboard's errors-only and has-recording lists, in list order. Partial: each holds only the
 * sessions it serves, so a filter that matches few of a million sessions reads few rows (a full
 * scan of the list index took ~780 ms on 1M sessions; with the index, 0.5 ms).
 */
const sessionFilters: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('sessions_errors_idx').on('sessions')
      .columns(['project_id', 'last_seen_at', 'id']).where(sql.ref('events_errors'), '>', sql.lit(0)).execute()
    await db.schema.createIndex('sessions_recording_idx').on('sessions')
      .columns(['project_id', 'last_seen_at', 'id']).where(sql.ref('recording_chunks'), '>', sql.lit(0)).execute()
  },
}

/**
 * Issues: ERROR and HTTP_ERROR events grouped across visits. Several fingerprints may point to one
 * issue (a stack fingerprinted before and after its source map arrived, a new grouping version), so
 * the fingerprint table maps many to one. issue_sessions links an issue to each visit that hit it,
 * with that visit's event count, so the counters stay exact when retention deletes the visit.
 * issue_totals counts a project's issues per status, so the list's total needs no count(*).
 */
const issues = (key: RawBuilder<unknown>): Migration => ({
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

/**
 * Webhook alerts: where a project's alerts go, and every delivery with its attempts (the worker's queue and the
 * dashboard's delivery log in one). The unique key names an alert to a webhook, so queueing it twice (a retried
 * ingest transaction) changes nothing.
 */
const webhooks = (key: RawBuilder<unknown>): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhooks')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('webhooks_pk', ['project_id', 'id'])
      .execute()
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('webhook_id', key, (c) => c.notNull())
      .addColumn('issue_id', key, (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('alert_at', 'bigint', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint')
      .addColumn('last_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('delivered_at', 'bigint')
      .addPrimaryKeyConstraint('webhook_deliveries_pk', ['project_id', 'id'])
      .addUniqueConstraint('webhook_deliveries_alert_uq', ['project_id', 'webhook_id', 'issue_id', 'kind', 'alert_at'])
      .execute()
    // The delivery log (newest first), the rate limit's count and the retention sweep.
    await db.schema.createIndex('webhook_deliveries_log_idx').on('webhook_deliveries')
      .columns(['project_id', 'created_at', 'id']).execute()
    // The worker's queue: due pending deliveries of every project, oldest first. Not led by project_id, unlike
    // every other key: one query serves all projects, and the pending rows are few.
    await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries')
      .columns(['status', 'next_attempt_at']).execute()
  },
})

/**
 * Uploaded source maps (src/sourcemaps/), looked up by the script URL of a stack frame or by debug ID.
 * One map per (project, url): a newer upload replaces the row, so the unique key is also the lookup index.
 * `data` is the gzip of the map as uploaded; `bytes` its uncompressed size, which the parsed-map cache weighs.
 */
const sourceMaps = (key: RawBuilder<unknown>, bytes: RawBuilder<unknown>): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('source_maps')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('url', key, (c) => c.notNull())
      .addColumn('debug_id', key)
      .addColumn('release', 'text')
      .addColumn('file', 'text', (c) => c.notNull())
      .addColumn('bytes', 'bigint', (c) => c.notNull())
      .addColumn('data', bytes, (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('source_maps_pk', ['project_id', 'id'])
      .addUniqueConstraint('source_maps_url_uq', ['project_id', 'url'])
      .execute()
    await db.schema.createIndex('source_maps_debug_id_idx').on('source_maps').columns(['project_id', 'debug_id']).execute()
  },
})

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
const issueReads = (key: RawBuilder<unknown>): Migration => ({
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

/**
 * A project's privacy settings (issue 13): how much of a visitor's IP address it stores (`full`, `truncated` or
 * `none`; null follows the server's IP_STORAGE) and the extra field names masked in request and response bodies
 * (a JSON array; null for none). Applied to what arrives from now on: stored addresses and bodies stay as they are.
 */
const projectPrivacy: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('projects').addColumn('ip_storage', 'text').execute()
    await db.schema.alterTable('projects').addColumn('mask_fields', 'text').execute()
  },
}

/**
 * A Sentry DSN per project (issue 14): a number, since the Sentry SDK takes only a numeric project id, given in
 * creation order; and a public key of word characters derived from the ingest key (dsnKeyOf). Both unique: each
 * is how an envelope finds its project.
 */
const projectDsn: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('projects').addColumn('number', 'integer').execute()
    await db.schema.alterTable('projects').addColumn('dsn_key', 'text').execute()
    const rows = await sql<{ id: string; ingest_key: string }>`select id, ingest_key from projects order by created_at, id`.execute(db)
    for (const [i, row] of rows.rows.entries()) {
      await sql`update projects set number = ${i + 1}, dsn_key = ${dsnKeyOf(row.ingest_key)} where id = ${row.id}`.execute(db)
    }
    await db.schema.createIndex('projects_number_uq').unique().on('projects').column('number').execute()
    await db.schema.createIndex('projects_dsn_key_uq').unique().on('projects').column('dsn_key').execute()
  },
}

/**
 * PostgreSQL: every statement that changes a project notifies PROJECTS_CHANNEL when it commits, whichever process
 * ran it, so each service process can keep projects in memory and drop them at once on a rotated key or a changed
 * setting (changes.ts). SQLite needs nothing: its data_version pragma tells the same.
 */
const projectChanges = (engine: Engine): Migration => ({
  async up(db: Kysely<unknown>) {
    if (engine !== 'postgres') return
    await sql.raw(`create function sessionwatch_projects_changed() returns trigger language plpgsql as $$
      begin perform pg_notify('${PROJECTS_CHANNEL}', ''); return null; end $$`).execute(db)
    await sql.raw(`create trigger projects_changed after insert or update or delete or truncate on projects
      for each statement execute function sessionwatch_projects_changed()`).execute(db)
  },
})

/** Versioned migrations, applied in key order on every start. */
export function migrations(engine: Engine): Record<string, Migration> {
  const key = engine === 'postgres' ? sql`text collate "C"` : sql`text`
  const blob = engine === 'postgres' ? sql`bytea` : sql`blob`
  return {
    '0001_initial': initial(key),
    '0002_meta': meta(key),
    '0003_recording': recording(key, blob),
    '0004_session_filters': sessionFilters,
    '0005_issues': issues(key),
    '0006_webhooks': webhooks(key),
    '0007_source_maps': sourceMaps(key, blob),
    '0008_issue_reads': issueReads(key),
    '0009_visit_search': visitSearch(engine, key),
    '0010_project_privacy': projectPrivacy,
    '0011_project_dsn': projectDsn,
    '0012_project_changes': projectChanges(engine),
    '0013_term_bits': termBits(engine, key),
    '0014_text_index_pending': textIndexPending(engine),
    ...listJsonMigrations(engine),
    '0016_project_limits': projectLimits(key),
    ...keyMigrations(key),
    '0019_webhook_secrets': webhookSecrets,
  }
}

export const migrationProvider = (engine: Engine): MigrationProvider => ({ getMigrations: () => Promise.resolve(migrations(engine)) })
