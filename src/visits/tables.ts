import type { Selectable } from 'kysely'

/*
 * The tables of a visit, owned by src/visits/: only its modules insert, update or delete their rows.
 * Times are epoch milliseconds.
 */


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
  /** Compressed bytes of recording a budget or the disk floor deleted (0: none); the visit and its events stay. */
  recording_evicted: number
  /** How the SDK recorded the visit (`whole`, `onError`); set by its first stored chunk, null before. */
  recording_mode: string | null
  /** Next receive-order number for this session's events. */
  next_seq: number
  /** The visit's number: its bit in term_bits (src/db/bits.ts), unique while it is stored (nextSessionNum). */
  num: number
}

/**
 * Row shape of `session_days`: how many stored sessions of a project started on a UTC day.
 * Kept exact by every insert, delete and start-time change, so `total` never needs a full count(*).
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
  /** JSON array of the frames a server Sentry SDK sent (contract SdkFrames), or null: read in place of parsing `stack`. */
  frames: string | null
  /** JSON object of a RAGE_CLICK's, DEAD_CLICK's or WEB_VITAL's own fields (contract EventDetail); null for other types. */
  detail: string | null
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
  /** gzip of the JSON array of rrweb events when it is kept in the database; null when it is in a store, or dropped. */
  data: Buffer | null
  /** The recording store (`recording_stores`) and object key holding the data; null when the data is inline or dropped. */
  store_id: number | null
  blob: string | null
  /** Why the chunk was dropped (chunk_too_large, session_limit, store_full), or null when stored. */
  dropped: string | null
  received_at: number
}

/**
 * Row shape of `recording_usage`: a project's recording bytes now and what budgets and the disk floor evicted, kept
 * exact by every write of chunks and sessions through DayDeltas (src/search/days.ts), which applies such hot counters
 * last in each transaction.
 */
export interface RecordingUsageTable {
  project_id: string
  bytes: number
  evicted_bytes: number
  evicted_visits: number
}

/** Row shape of `recording_trash`: an object whose chunk row is gone, waiting to be deleted from its store. */
export interface RecordingTrashTable {
  store_id: number
  blob: string
  trashed_at: number
}

/** The visitor facts' columns (facts.ts maps each fact to its columns, in this order; its unit test holds the two together). */
export const FACT_COLUMNS = [
  'ip', 'country', 'user_agent', 'utm', 'entry_url', 'browser', 'os', 'user_id', 'user_traits', 'tags', 'release', 'environment',
] as const satisfies readonly (keyof SessionTable)[]
export type FactColumn = (typeof FACT_COLUMNS)[number]

/** A session as the reads return it: its own columns, with its visitor facts (facts.ts) after its times. */
export const sessionColumns = [
  'id', 'session_key', 'started_at', 'last_seen_at', ...FACT_COLUMNS,
  'events_total', 'events_errors', 'events_slow', 'recording_chunks', 'recording_bytes', 'recording_dropped',
] as const satisfies readonly (keyof SessionTable)[]
export type SessionListRow = Pick<Selectable<SessionTable>, (typeof sessionColumns)[number]>

export const eventColumns = [
  'seq', 'id', 'type', 'created_at', 'url', 'method', 'message', 'stack', 'status_code', 'duration_ms', 'req_body', 'res_body',
  'fingerprint', 'issue_id', 'frames', 'detail',
] as const satisfies readonly (keyof EventTable)[]
export type EventRow = Pick<Selectable<EventTable>, (typeof eventColumns)[number]>
