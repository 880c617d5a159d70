/*
 * The release tables, owned by src/releases/: only its store (count.ts) inserts, updates or deletes their rows.
 * Times are epoch milliseconds; `environment` is '' when none was given (a key cannot be null).
 */

/** Where a counted unit came from: a Sentry session (by sid), a bucket of a Sentry aggregate, one of our SDK's visits. */
export type UnitSource = 'session' | 'aggregate' | 'visit'

/**
 * Row shape of `release_units`: what one counted thing added to its release's counters, so updating it (a later
 * session update, a visit that crashed later) or removing it (retention, erasure) moves them by exactly that.
 */
export interface ReleaseUnitTable {
  project_id: string
  /** `s:<sid>`, `a:<hash of the item>:<bucket>`, `v:<visit id>`. */
  unit: string
  source: UnitSource
  release: string
  environment: string
  /** The distinct user (Sentry `did`, our SDK's user id); null when unknown, which counts no user. */
  user_key: string | null
  /** UTC day number of `started_at`: the day its sessions count on. */
  day: number
  started_at: number
  /** Its latest activity: retention drops a Sentry unit after it. */
  seen_at: number
  /** Sessions, and how many of them ended errored, crashed, abnormal (each session in at most one). */
  sessions: number
  errored: number
  crashed: number
  abnormal: number
}

/** Row shape of `releases`: a release's counters in one environment, read by the list as they are. */
export interface ReleaseTable {
  project_id: string
  release: string
  environment: string
  sessions: number
  errored: number
  crashed: number
  abnormal: number
  /** Distinct users (release_users rows) and how many of them had a crashed session. */
  users: number
  crashed_users: number
  /** Its earliest session start and latest activity ever counted; retention leaves them as they were. */
  first_seen_at: number
  last_seen_at: number
}

/** Row shape of `release_users`: one user's sessions and crashed sessions in a release, for exact user counts. */
export interface ReleaseUserTable {
  project_id: string
  release: string
  environment: string
  user_key: string
  sessions: number
  crashed: number
}

/** Row shape of `release_days`: a release's sessions per UTC day of their start, for adoption over time. */
export interface ReleaseDayTable {
  project_id: string
  release: string
  environment: string
  day: number
  sessions: number
  errored: number
  crashed: number
  abnormal: number
}
