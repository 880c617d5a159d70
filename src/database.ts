import type { Kysely, Transaction } from 'kysely'
import type { DatabaseConfig } from './config.ts'
import { openDatabase as open, type DatabaseHandle as Handle, type OpenOptions } from './db/connect.ts'
import type { WebhookDeliveryTable, WebhookTable } from './alerts/table.ts'
import type { ProjectTable } from './projects/table.ts'
import type { EventTable, RecordingChunkTable, RecordingTrashTable, RecordingUsageTable, SessionTable } from './visits/tables.ts'
import type { RecordingStoreTable } from './recording/store/table.ts'
import type { IssueDayTable, IssueCommentTable, IssueFingerprintTable, IssueReleaseTotalTable, IssueSessionTable, IssueTable, IssueTotalTable } from './issues/tables.ts'
import type { SessionDayTable, SessionTermTable, SessionTextTable, TermBitsTable, TermDayTable } from './search/tables.ts'
import type { SourceMapTable } from './sourcemaps/table.ts'
import type { InvitationTable, SignInTable, SsoStateTable, UserProjectTable, UserTable } from './accounts/tables.ts'
import type { AuditTable } from './audit/table.ts'
import type { ReplayLinkTable } from './replay-links/table.ts'
import type { QuotaDayTable } from './limits/table.ts'
import type { MetaTable } from './db/meta.ts'
import type { ReleaseDayTable, ReleaseTable, ReleaseUnitTable, ReleaseUserTable } from './releases/tables.ts'
import type { PageDayTable, PageTotalTable, PageVitalTable, PageVitalTotalTable } from './pages/tables.ts'

/** The whole schema, assembled from each feature's table types. */
export interface Database {
  meta: MetaTable
  projects: ProjectTable
  sessions: SessionTable
  session_days: SessionDayTable
  session_terms: SessionTermTable
  session_texts: SessionTextTable
  term_days: TermDayTable
  term_bits: TermBitsTable
  events: EventTable
  recording_chunks: RecordingChunkTable
  recording_trash: RecordingTrashTable
  recording_usage: RecordingUsageTable
  recording_stores: RecordingStoreTable
  issues: IssueTable
  issue_fingerprints: IssueFingerprintTable
  issue_sessions: IssueSessionTable
  issue_days: IssueDayTable
  issue_totals: IssueTotalTable
  issue_release_totals: IssueReleaseTotalTable
  issue_comments: IssueCommentTable
  replay_links: ReplayLinkTable
  webhooks: WebhookTable
  webhook_deliveries: WebhookDeliveryTable
  source_maps: SourceMapTable
  users: UserTable
  user_projects: UserProjectTable
  invitations: InvitationTable
  sign_ins: SignInTable
  sso_states: SsoStateTable
  audit_log: AuditTable
  quota_days: QuotaDayTable
  release_units: ReleaseUnitTable
  releases: ReleaseTable
  release_users: ReleaseUserTable
  release_days: ReleaseDayTable
  page_days: PageDayTable
  page_totals: PageTotalTable
  page_vitals: PageVitalTable
  page_vital_totals: PageVitalTotalTable
}

/** Store functions take either the database or an open transaction. */
export type Db = Kysely<Database> | Transaction<Database>

export type DatabaseHandle = Handle<Database>

/** Opens the configured engine with the service's schema, brought to the latest version. */
export const openDatabase = (config: DatabaseConfig, options?: OpenOptions): Promise<DatabaseHandle> => open<Database>(config, options)
