/*
 * The issue tables, owned by src/issues/: only its store (store.ts) inserts, updates or deletes their rows.
 * Times are epoch milliseconds.
 */

/** Issue statuses: an open issue is shown by default; a resolved one reopens when it occurs again. */
export type IssueStatus = 'open' | 'resolved' | 'ignored'

/** Row shape of `issues`: ERROR, HTTP_ERROR and RAGE_CLICK events grouped across visits by fingerprint. */
export interface IssueTable {
  project_id: string
  id: string
  /** The grouping rules that made the issue (src/issues/fingerprint.ts GROUPING_VERSION). */
  grouping_version: number
  /** ERROR, HTTP_ERROR or RAGE_CLICK. */
  type: string
  title: string
  /** The top in-app frame, the URL template of a failed request, or a rage-clicked element and its page template. */
  culprit: string | null
  first_seen_at: number
  last_seen_at: number
  /** Stored events and distinct stored visits of the issue: exact, kept by ingest, retention and erasure. */
  events: number
  sessions: number
  status: IssueStatus
  /** When it was last resolved; an event after this reopens it. */
  resolved_at: number | null
  created_at: number
  /** Its latest stored event (session and event id): null once every visit that held it is gone. */
  last_session_id: string | null
  last_event_id: string | null
  /** The release and environment ('' for none) of its first event: a release's new issues. Null without a release. */
  release: string | null
  environment: string | null
  /** The person (users.id) working on it, who has a role on the project; null: nobody. */
  assignee_id: string | null
}

/** Row shape of `issue_comments`: what people say about an issue, oldest first. */
export interface IssueCommentTable {
  /** `cm_` and 12 random characters. */
  id: string
  project_id: string
  issue_id: string
  /** The author (users.id); null once they were removed, the comment staying. */
  user_id: string | null
  /** Plain text, shown as text. */
  body: string
  created_at: number
  updated_at: number
}

/** Row shape of `issue_fingerprints`: many fingerprints may lead to one issue. */
export interface IssueFingerprintTable {
  project_id: string
  fingerprint: string
  grouping_version: number
  issue_id: string
}

/** Row shape of `issue_sessions`: a visit that hit an issue (written once, when the first of its events is stored). */
export interface IssueSessionTable {
  project_id: string
  issue_id: string
  session_id: string
}

/** Row shape of `issue_days`: an issue's stored events per UTC day number, for its histogram. */
export interface IssueDayTable {
  project_id: string
  issue_id: string
  day: number
  events: number
}

/** Row shape of `issue_release_totals`: a release's new issues (issues.release), so a page of releases needs no count. */
export interface IssueReleaseTotalTable {
  project_id: string
  release: string
  environment: string
  issues: number
}

/** Row shape of `issue_totals`: a project's issues per status, so the list's total needs no count. */
export interface IssueTotalTable {
  project_id: string
  status: IssueStatus
  issues: number
}
