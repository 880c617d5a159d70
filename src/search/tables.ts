/*
 * The tables of the search index, owned by src/search/: only its modules insert, update or delete their rows.
 */

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
 * `v:<METRIC>:<rating>` (has a WEB_VITAL of that metric rated so, such as v:LCP:poor), `g:<key>=<value>` (was tagged so). Written once per visit and term.
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
