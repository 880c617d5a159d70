/** Row shape of `quota_days`: the events a project's daily quota counted on one UTC day; quota.ts owns the table. */
export interface QuotaDayTable {
  project_id: string
  /** UTC day number (util/time.ts dayOf). */
  day: number
  events: number
}
