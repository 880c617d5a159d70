/** A page template's counts, per UTC day (page_days) or over every stored day (page_totals). */
export interface PageCounts {
  /** NAVIGATION events: page loads and SPA route changes. */
  views: number
  /** ERROR events thrown on the page. */
  errors: number
  rage_clicks: number
  dead_clicks: number
  /** WEB_VITAL events, of any metric: a page with vitals alone still has a row. */
  vitals: number
}

export interface PageDayTable extends PageCounts {
  project_id: string
  /** The UTC day number (days since the epoch) of the events' createdAt. */
  day: number
  /** The page's URL template (MAX_PAGE_LENGTH characters at most). */
  page: string
}

export interface PageTotalTable extends PageCounts {
  project_id: string
  page: string
}

/** One bucket of a page's histogram of one metric on one day. */
export interface PageVitalTable {
  project_id: string
  day: number
  /** LCP, INP, CLS, FCP or TTFB. */
  metric: string
  page: string
  /** The values counted here, rounded up to a bucket step (common/vitals.ts vitalBucket). */
  bucket: number
  count: number
}

/** One bucket of a page's histogram of one metric over every stored day. */
export type PageVitalTotalTable = Omit<PageVitalTable, 'day'>
