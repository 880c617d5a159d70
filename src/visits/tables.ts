import type { ColumnType } from 'kysely'

/*
 * The tables of a visit, owned by src/visits/: only its modules insert, update or delete their rows.
 * Times are epoch milliseconds.
 */

/**
 * Node's Buffer, read off the global type: the browser SDK's type check (no Node types) reaches this file through
 * the ingest schema (ingest → recording → sessions → visits/facts), and sees a Uint8Array instead of an error.
 */
type Bytes = typeof globalThis extends { Buffer: { alloc(size: number): infer B } } ? B : Uint8Array

/** Row shape of `sessions`. Times are epoch milliseconds. */
export interface SessionTable {
  project_id: string
  id: string
  session_key: string
  started_at: number
  /** UTC day number of started_at (days since 1970-01-01): keys the `date=` filter and day counters. */
  start_day: number
  last_seen_at: number
  ip: string | null
  country: string | null
  user_agent: string | null
  /** JSON object of referral tags, or null. */
  utm: string | null
  /** The first page of the visit. */
  entry_url: string | null
  /** Browser and OS family names parsed from user_agent (bowser), as the dashboard shows them. */
  browser: string | null
  os: string | null
  /** The identified user (Sessionwatch.identify) and its traits (JSON object); the latest batch that carries one sets them. */
  user_id: string | null
  user_traits: string | null
  /** JSON object of the visit's tags (Sessionwatch.setTags); the latest batch that carries tags sets them. */
  tags: string | null
  release: string | null
  environment: string | null
  /** JSON array of the visit's rows in session_terms, so deleting the visit deletes exactly those. */
  terms: string | null
  events_total: number
  events_errors: number
  events_slow: number
  /** Recording chunks stored, their compressed bytes, and chunks refused by the size limits. */
  recording_chunks: number
  recording_bytes: number
  recording_dropped: number
  /** Next receive-order number for this session's events. */
  next_seq: number
  /** The visit's number: its bit in term_bits (src/db/bits.ts), unique while it is stored (nextSessionNum). */
  num: number
  /**
   * The session as the list writes it (the API's JSON), kept by the database's trigger (src/visits/list-json.ts) from
   * the columns it shows, so no write sets it and a list page reads one string a row.
   */
  list_json: ColumnType<string | null, never, never>
}

/**
 * Row shape of `session_days`: how many stored sessions of a project started on a UTC day.
 * Kept exact by every insert, delete and start-time change, so `total` never needs a full count(*).
 */
export interface SessionDayTable {
  project_id: string
  day: number
  sessions: number
}

/**
 * Row shape of `session_terms`: what a visit has, one row per kind and value, for the list's filters (spelled
 * by search.ts `term`): has errors, has a recording, its country, browser and OS, `t:<TYPE>` (has an event of
 * that type), `s:<code>` and `s:<class>` (has an HTTP_ERROR with that status or of that class, such as 5xx),
 * `g:<key>=<value>` (was tagged so). Written once per visit and term.
 */
export interface SessionTermTable {
  project_id: string
  term: string
  session_id: string
}

/**
 * Row shape of `term_bits`: the visits of session_terms as bits at their `sessions.num`, a row per project, term and
 * chunk of BITS_PER_CHUNK numbers (src/db/bits.ts); a term's exact total with others is an AND and a count of its rows.
 * `bits` is a blob on SQLite, a bit string on PostgreSQL (read only through src/db/sql.ts's bit operations).
 */
export interface TermBitsTable {
  project_id: string
  term: string
  chunk: number
  bits: unknown
}

/** Row shape of `term_days`: how many stored visits with a term started on a UTC day (exact, like session_days). */
export interface TermDayTable {
  project_id: string
  term: string
  day: number
  sessions: number
}

/**
 * Row shape of `session_texts`: the searchable text of a visit (`q=`, `url=`), a row per batch that brought new
 * text. `page` holds the pages visited, `body` event messages, request URLs, the user id and traits. Indexed by
 * trigrams: FTS5 on SQLite (`session_fts`, kept by triggers), pg_trgm GIN indexes on PostgreSQL.
 */
export interface SessionTextTable {
  project_id: string
  session_id: string
  part: number
  page: string
  body: string
}

/** Row shape of `events`. */
export interface EventTable {
  project_id: string
  session_id: string
  /** Client-supplied or derived from the batch id, so a retried batch maps onto the same rows. */
  id: string
  /** Receive order inside the session; breaks ties between equal created_at. */
  seq: number
  type: string
  created_at: number
  url: string | null
  method: string | null
  message: string | null
  stack: string | null
  status_code: number | null
  duration_ms: number | null
  req_body: string | null
  res_body: string | null
  /** The grouping key the page chose, or null. */
  fingerprint: string | null
  /** The issue an ERROR or HTTP_ERROR event was grouped into; null for other types. */
  issue_id: string | null
}

/** Row shape of `recording_chunks`: one upload of rrweb events, gzip-compressed JSON. Times are epoch ms. */
export interface RecordingChunkTable {
  project_id: string
  session_id: string
  /** The SDK's chunk id, unique within the session: a retried upload maps onto the same row. */
  id: string
  /** The first and last recorded event, corrected for the visitor clock skew like events are. */
  started_at: number
  ended_at: number
  events: number
  /** 1 when the chunk opens with a full snapshot, so a replay can start at it. */
  full_snapshot: number
  /** Compressed size: what counts against the limits. */
  bytes: number
  /** gzip of the JSON array of rrweb events; null when the chunk was dropped. */
  data: Bytes | null
  /** Why the chunk was dropped (chunk_too_large, session_limit), or null when stored. */
  dropped: string | null
  received_at: number
}

/** Issue statuses: an open issue is shown by default; a resolved one reopens when it occurs again. */
export type IssueStatus = 'open' | 'resolved' | 'ignored'

/** Row shape of `issues`: ERROR and HTTP_ERROR events grouped across visits by fingerprint. */
export interface IssueTable {
  project_id: string
  id: string
  /** The grouping rules that made the issue (src/issues/fingerprint.ts GROUPING_VERSION). */
  grouping_version: number
  /** ERROR or HTTP_ERROR. */
  type: string
  title: string
  /** The top in-app frame, or the URL template of a failed request. */
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

/** Row shape of `issue_totals`: a project's issues per status, so the list's total needs no count. */
export interface IssueTotalTable {
  project_id: string
  status: IssueStatus
  issues: number
}
