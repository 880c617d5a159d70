import { sql, type Migration, type MigrationProvider } from 'kysely'
import type { Engine, Target } from './target.ts'
import { initial } from './0001_initial.ts'
import { meta } from './0002_meta.ts'
import { recording } from './0003_recording.ts'
import { sessionFilters } from './0004_session_filters.ts'
import { issues } from './0005_issues.ts'
import { webhooks } from './0006_webhooks.ts'
import { sourceMaps } from './0007_source_maps.ts'
import { issueReads } from './0008_issue_reads.ts'
import { visitSearch } from './0009_visit_search.ts'
import { projectPrivacy } from './0010_project_privacy.ts'
import { projectDsn } from './0011_project_dsn.ts'
import { projectChanges } from './0012_project_changes.ts'
import { termBits } from './0013_term_bits.ts'
import { textIndexPending } from './0014_text_index_pending.ts'
import { sessionListJson } from './0015_session_list_json.ts'
import { projectLimits } from './0016_project_limits.ts'
import { uploadKeys } from './0017_upload_keys.ts'
import { adminSessions } from './0018_admin_sessions.ts'
import { webhookSecrets } from './0019_webhook_secrets.ts'
import { dropSessionListJson } from './0020_drop_session_list_json.ts'
import { releaseHealth } from './0021_release_health.ts'
import { eventFrames } from './0022_event_frames.ts'
import { recordingStores } from './0023_recording_stores.ts'
import { accounts } from './0024_accounts.ts'
import { pages } from './0025_pages.ts'

/**
 * The migrations, applied in key order on every start. Each is frozen once shipped: it imports nothing of the
 * service, so changing the service never changes what an old migration does. A name, once shipped, never changes.
 */
const MIGRATIONS: Record<string, (target: Target) => Migration> = {
  '0001_initial': initial,
  '0002_meta': meta,
  '0003_recording': recording,
  '0004_session_filters': sessionFilters,
  '0005_issues': issues,
  '0006_webhooks': webhooks,
  '0007_source_maps': sourceMaps,
  '0008_issue_reads': issueReads,
  '0009_visit_search': visitSearch,
  '0010_project_privacy': projectPrivacy,
  '0011_project_dsn': projectDsn,
  '0012_project_changes': projectChanges,
  '0013_term_bits': termBits,
  '0014_text_index_pending': textIndexPending,
  '0015_session_list_json': sessionListJson,
  '0016_project_limits': projectLimits,
  '0017_upload_keys': uploadKeys,
  '0018_admin_sessions': adminSessions,
  '0019_webhook_secrets': webhookSecrets,
  '0020_drop_session_list_json': dropSessionListJson,
  '0021_release_health': releaseHealth,
  '0022_event_frames': eventFrames,
  '0023_recording_stores': recordingStores,
  '0024_accounts': accounts,
  '0025_pages': pages,
}

export function migrationProvider(engine: Engine): MigrationProvider {
  const target: Target = engine === 'postgres'
    ? { engine, key: sql`text collate "C"`, blob: sql`bytea` }
    : { engine, key: sql`text`, blob: sql`blob` }
  const migrations = Object.fromEntries(Object.entries(MIGRATIONS).map(([name, migration]) => [name, migration(target)]))
  return { getMigrations: () => Promise.resolve(migrations) }
}
