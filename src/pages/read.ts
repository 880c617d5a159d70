/*
 * Reads of the page counters for a range of UTC days. A range is summed from the day rows it covers, or, when it
 * covers most of the stored days (the whole retention, say), from the totals less the stored days outside it:
 * either way the fewer rows, and one statement, so a sweep running meanwhile is seen whole or not at all.
 */
import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../database.ts'
import { jsonArrayOf } from '../db/sql.ts'
import type { VitalName } from '../../common/vitals.ts'
import { COUNTERS } from './count.ts'
import type { PageCounts } from './tables.ts'

/** What a read sums: the totals (less `days`), or `days` alone; `days` are inclusive ranges of UTC day numbers. */
export interface DayPlan {
  totals: boolean
  days: readonly (readonly [first: number, last: number])[]
}

/** The first and last UTC day a project has page counters of, or null when it has none. */
export async function storedDays(db: Db, projectId: string): Promise<{ first: number; last: number } | null> {
  // Two subqueries, each answered from one end of the primary key's index.
  const row = await db.selectNoFrom((eb) => [
    eb.selectFrom('page_days').select((f) => f.fn.min('day').as('d')).where('project_id', '=', projectId).as('first'),
    eb.selectFrom('page_days').select((f) => f.fn.max('day').as('d')).where('project_id', '=', projectId).as('last'),
  ]).executeTakeFirst()
  const first = row?.first ?? null
  const last = row?.last ?? null
  return first === null || last === null ? null : { first, last }
}

/** How to read the days `from` … `to` (inclusive) of the stored ones; null when none of them is stored. */
export function planDays(stored: { first: number; last: number }, from: number, to: number): DayPlan | null {
  const first = Math.max(from, stored.first)
  const last = Math.min(to, stored.last)
  if (first > last) return null
  const inside = last - first + 1
  const outside = stored.last - stored.first + 1 - inside
  // The totals weigh about a day: a day more than the days out of range.
  if (inside <= outside + 1) return { totals: false, days: [[first, last]] }
  return { totals: true, days: ([[stored.first, first - 1], [last + 1, stored.last]] as const).filter(([a, b]) => a <= b) }
}

const union = (parts: readonly RawBuilder<unknown>[]) => sql.join(parts, sql` union all `)

/** Each page's counts over the plan's days, pages without any included. */
export async function pageCounts(db: Db, projectId: string, plan: DayPlan): Promise<Map<string, PageCounts>> {
  const columns = (negate: boolean) => sql.join(COUNTERS.map((c) => (negate ? sql`-${sql.ref(c)} as ${sql.ref(c)}` : sql.ref(c))))
  const parts = plan.days.map(([first, last]) => sql`select page, ${columns(plan.totals)} from page_days
    where project_id = ${projectId} and day >= ${first} and day <= ${last}`)
  if (plan.totals) parts.unshift(sql`select page, ${columns(false)} from page_totals where project_id = ${projectId}`)
  const sums = sql.join(COUNTERS.map((c) => sql`sum(${sql.ref(c)}) as ${sql.ref(c)}`))
  const { rows } = await sql<{ page: string } & Record<keyof PageCounts, number | string>>`
    select page, ${sums} from (${union(parts)}) as c group by page`.execute(db)
  return new Map(rows.map((r) => [r.page, {
    views: Number(r.views), errors: Number(r.errors), rage_clicks: Number(r.rage_clicks), dead_clicks: Number(r.dead_clicks), vitals: Number(r.vitals),
  }]))
}

/** A page's histogram of one metric: count by bucket. */
export type Histogram = Map<number, number>
export const histogramKey = (metric: string, page: string): string => `${metric}\u0000${page}`

/**
 * The histograms of `metrics` over the plan's days, of `pages` or of every page, by histogramKey. Each group's
 * buckets and counts come as two JSON arrays, which cost far less to send and read than a row per bucket.
 */
export async function histograms(
  db: Db, projectId: string, plan: DayPlan, metrics: readonly VitalName[], pages?: readonly string[],
): Promise<Map<string, Histogram>> {
  const out = new Map<string, Histogram>()
  if (pages?.length === 0) return out
  const only = sql`metric in (${sql.join(metrics)})${pages === undefined ? sql`` : sql` and page in (${sql.join(pages)})`}`
  const arrays = sql`${jsonArrayOf(db, 'bucket')} as buckets, ${jsonArrayOf(db, 'count')} as counts`
  // Grouped in the order of the day rows' key, so neither engine sorts them first.
  const parts = plan.days.map(([first, last]) => sql`select metric, page, ${sql.raw(plan.totals ? '-1' : '1')} as sign, ${arrays} from page_vitals
    where project_id = ${projectId} and day >= ${first} and day <= ${last} and ${only} group by day, metric, page`)
  if (plan.totals) parts.unshift(sql`select metric, page, 1 as sign, ${arrays} from page_vital_totals where project_id = ${projectId} and ${only} group by metric, page`)
  const { rows } = await sql<{ metric: string; page: string; sign: number | string; buckets: string; counts: string }>`${union(parts)}`.execute(db)
  for (const r of rows) {
    const key = histogramKey(r.metric, r.page)
    let histogram = out.get(key)
    if (!histogram) out.set(key, (histogram = new Map<number, number>()))
    const buckets = JSON.parse(r.buckets) as number[]
    const counts = JSON.parse(r.counts) as number[]
    const sign = Number(r.sign)
    for (const [i, bucket] of buckets.entries()) histogram.set(bucket, (histogram.get(bucket) ?? 0) + sign * (counts[i] ?? 0))
  }
  return out
}
