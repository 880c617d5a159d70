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
  events_total: number
  events_errors: number
  events_slow: number
  /** Recording chunks stored, their compressed bytes, and chunks refused by the size limits. */
  recording_chunks: number
  recording_bytes: number
  recording_dropped: number
  /** Next receive-order number for this session's events. */
  next_seq: number
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
