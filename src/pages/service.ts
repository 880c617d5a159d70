import { DEFAULT_LIMIT } from '../../common/limits.ts'
import { ratingOf, VITAL_NAMES, type VitalName } from '../../common/vitals.ts'
import type { Db } from '../database.ts'
import { retentionCutoff, type ProjectContext } from '../projects/service.ts'
import { parseRange } from '../sessions/service.ts'
import { dayOf } from '../util/time.ts'
import { histogramKey, histograms, pageCounts, planDays, storedDays, type Histogram } from './read.ts'
import type { PageListQuery, PageListView, PageReportView, PageSort, VitalSummaryView } from './schema.ts'
import type { PageCounts } from './tables.ts'

/**
 * A histogram's summary: the nearest-rank 75th percentile (the smallest bucket holding 75% of the values) and the
 * values by rating, which the buckets count exactly (no bucket straddles a threshold: common/vitals.ts).
 */
export function summarize(metric: VitalName, histogram: Histogram | undefined): VitalSummaryView {
  const summary: VitalSummaryView = { p75: null, good: 0, needsImprovement: 0, poor: 0 }
  const buckets = [...(histogram ?? [])].filter(([, n]) => n > 0).sort(([a], [b]) => a - b)
  const total = buckets.reduce((sum, [, n]) => sum + n, 0)
  let seen = 0
  for (const [bucket, n] of buckets) {
    seen += n
    if (summary.p75 === null && seen >= 0.75 * total) summary.p75 = bucket
    const rating = ratingOf(metric, bucket)
    if (rating === 'good') summary.good += n
    else if (rating === 'poor') summary.poor += n
    else summary.needsImprovement += n
  }
  return summary
}

const SORT_METRIC: Readonly<Record<PageSort, VitalName | null>> = { views: null, lcp: 'LCP', inp: 'INP', cls: 'CLS' }
const hasAny = (c: PageCounts): boolean => c.views > 0 || c.errors > 0 || c.rage_clicks > 0 || c.dead_clicks > 0 || c.vitals > 0

/**
 * The UTC days a query counts, first and last (inclusive): those its period touches, none before the project's
 * retention; `date`, `from` and `to` are validated as listSessions validates them (400 naming the parameter).
 */
export function queryDays(project: ProjectContext, query: Pick<PageListQuery, 'date' | 'from' | 'to'>, now: number): [number, number] {
  const range = parseRange(query)
  const first = Math.max(range.from === undefined ? -Infinity : dayOf(range.from), dayOf(retentionCutoff(project, now)))
  // `to` is exclusive: the last day counted holds the millisecond before it.
  return [first, range.to === undefined ? Infinity : dayOf(range.to - 1)]
}

/**
 * listPages: each page template's views, vitals, rage and dead clicks and errors over the query's days, from the
 * counters kept at ingest, sorted as `sort` says and paged by limit and offset. The read API and the dashboard call it.
 */
export async function listPages(db: Db, project: ProjectContext, query: PageListQuery, now = Date.now()): Promise<PageListView> {
  const [first, last] = queryDays(project, query, now)
  const limit = query.limit ?? DEFAULT_LIMIT
  const offset = query.offset ?? 0
  const stored = await storedDays(db, project.id)
  const plan = stored && planDays(stored, first, last)
  if (!plan) return { total: 0, limit, offset, pages: [] }
  const counts = [...await pageCounts(db, project.id, plan)].filter(([, c]) => hasAny(c))
  const byViews = (a: [string, PageCounts], b: [string, PageCounts]) => b[1].views - a[1].views || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)
  const metric = SORT_METRIC[query.sort ?? 'views']
  // The sort's vital, read for every page, serves the page of them as it is.
  const sorted = metric === null ? new Map<string, Histogram>() : await histograms(db, project.id, plan, [metric])
  if (metric === null) counts.sort(byViews)
  else {
    const p75 = new Map(counts.map(([page]) => [page, summarize(metric, sorted.get(histogramKey(metric, page))).p75 ?? -1]))
    counts.sort((a, b) => (p75.get(b[0]) ?? -1) - (p75.get(a[0]) ?? -1) || byViews(a, b))
  }
  const slice = counts.slice(offset, offset + limit)
  const others = VITAL_NAMES.filter((name) => name !== metric)
  const found = new Map([...sorted, ...await histograms(db, project.id, plan, others, slice.map(([page]) => page))])
  return { total: counts.length, limit, offset, pages: slice.map(([page, c]) => report(page, c, found)) }
}

function report(page: string, c: PageCounts, found: ReadonlyMap<string, Histogram>): PageReportView {
  const vital = (metric: VitalName) => summarize(metric, found.get(histogramKey(metric, page)))
  return {
    url: page, views: c.views, lcp: vital('LCP'), inp: vital('INP'), cls: vital('CLS'), fcp: vital('FCP'), ttfb: vital('TTFB'),
    rageClicks: c.rage_clicks, deadClicks: c.dead_clicks, errors: c.errors,
  }
}
