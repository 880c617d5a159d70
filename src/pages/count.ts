/**
 * The page counters as ingest keeps them: a step of the visit's write (src/visits/write.ts), which hands over the
 * events each batch newly stored, and applies them once for its transaction, last, with the other hot counters.
 */
import type { Column, Upsert, Value } from '../db/counters.ts'
import type { EventRecord } from '../contract/index.ts'
import { urlTemplate } from '../issues/index.ts'
import { isVitalName, vitalBucket } from '../../common/vitals.ts'
import { dayOf } from '../util/time.ts'
import { MAX_PAGE_LENGTH } from './limits.ts'
import type { PageCounts } from './tables.ts'

/** The event types a page counts, and the counter each adds to. */
const COUNTED: Readonly<Record<string, keyof PageCounts>> = {
  NAVIGATION: 'views', ERROR: 'errors', RAGE_CLICK: 'rage_clicks', DEAD_CLICK: 'dead_clicks', WEB_VITAL: 'vitals',
}
export const COUNTERS = ['views', 'errors', 'rage_clicks', 'dead_clicks', 'vitals'] as const satisfies readonly (keyof PageCounts)[]

/**
 * The page an event's URL counts in: its template (ids become `:id`, origin kept, query and fragment dropped, as
 * for HTTP issues), cut to MAX_PAGE_LENGTH characters without splitting a surrogate pair.
 *
 * @example
 * pageOf('https://Shop.example/orders/1234?tab=2') // 'https://shop.example/orders/:id'
 */
export function pageOf(url: string): string {
  const template = urlTemplate(url)
  if (template.length <= MAX_PAGE_LENGTH) return template
  const end = /[\uD800-\uDBFF]/.test(template.charAt(MAX_PAGE_LENGTH - 1)) ? MAX_PAGE_LENGTH - 1 : MAX_PAGE_LENGTH
  return template.slice(0, end)
}

const COUNTER_COLUMNS: readonly Column[] = COUNTERS.map((c) => [c, 'integer'])
const PROJECT: Column = ['project_id', 'text']
const DAY: Column = ['day', 'integer']
const PAGE: Column = ['page', 'text']
const METRIC: Column = ['metric', 'text']
const BUCKET: Column = ['bucket', 'double precision']
const COUNT: Column = ['count', 'integer']

/** A table of counters per UTC day and the table of their totals over every stored day: the keys (the day's have `day` second too) and the counters. */
export interface Counters { days: string; totals: string; keys: readonly Column[]; counters: readonly Column[] }
export const PAGE_COUNTERS: Counters = { days: 'page_days', totals: 'page_totals', keys: [PROJECT, PAGE], counters: COUNTER_COLUMNS }
export const VITAL_COUNTERS: Counters = { days: 'page_vitals', totals: 'page_vital_totals', keys: [PROJECT, METRIC, PAGE, BUCKET], counters: [COUNT] }

/** Rows of day counters (project, day, the other keys, the counters) for their day table, and summed for the totals. */
function dayUpserts(c: Counters, rows: Iterable<Value[]>): [Upsert, Upsert] {
  const all = sorted(rows)
  return [{ table: c.days, keys: [PROJECT, DAY, ...c.keys.slice(1)], counters: c.counters, rows: all }, totalUpsert(c, all)]
}

/** Rows of day counters summed without their day, for the totals: negative counts take from them (retention). */
export const totalUpsert = (c: Counters, rows: Iterable<Value[]>): Upsert =>
  ({ table: c.totals, keys: c.keys, counters: c.counters, rows: sorted(totals(rows, c.keys.length + 1)) })

/**
 * Changes to the page counters, gathered during a transaction and written once at its end, with the day counters
 * (src/search/days.ts, which takes them as `upserts()`): every counter row of page_days and page_vitals with the same
 * change to its page's page_totals and page_vital_totals row, so each total stays the sum of its stored days. Rows are
 * written sorted, as the day counters are, so concurrent PostgreSQL writers take them in one order.
 */
export class PageDeltas {
  readonly #stored: { projectId: string; events: readonly EventRecord[] }[] = []

  /** A batch's newly stored events: those of a retried batch that were stored before count no more. */
  add(projectId: string, events: readonly EventRecord[]): void {
    if (events.length > 0) this.#stored.push({ projectId, events })
  }

  /** Adds these changes to `other` (a batch's changes join its transaction's once it succeeds). */
  mergeInto(other: PageDeltas): void {
    other.#stored.push(...this.#stored)
  }

  /** The changes as rows to add into the four tables, always in the same order; they are forgotten here. */
  upserts(): Upsert[] {
    const days = new Map<string, Value[]>()
    const vitals = new Map<string, Value[]>()
    // A batch's events mostly share their page's URL: each is made a template once.
    const pages = new Map<string, string>()
    for (const { projectId, events } of this.#stored) {
      for (const e of events) {
        const counter = COUNTED[e.type]
        if (counter === undefined || !e.url) continue
        let page = pages.get(e.url)
        if (page === undefined) pages.set(e.url, (page = pageOf(e.url)))
        if (page === '') continue
        const day = dayOf(e.createdAt)
        if (counter === 'vitals') {
          const { name, value } = e.detail ?? {}
          if (name === undefined || value === undefined || !isVitalName(name)) continue
          const bucket = vitalBucket(value)
          const key = `${projectId}\u0000${day}\u0000${name}\u0000${page}\u0000${bucket}`
          const row = vitals.get(key)
          if (row) row[5] = (row[5] as number) + 1
          else vitals.set(key, [projectId, day, name, page, bucket, 1])
        }
        const key = `${projectId}\u0000${day}\u0000${page}`
        let row = days.get(key)
        if (!row) days.set(key, (row = [projectId, day, page, 0, 0, 0, 0, 0]))
        const at = 3 + COUNTERS.indexOf(counter)
        row[at] = (row[at] as number) + 1
      }
    }
    this.#stored.length = 0
    return [...dayUpserts(PAGE_COUNTERS, days.values()), ...dayUpserts(VITAL_COUNTERS, vitals.values())]
  }
}

/** Rows of day counters (project, day, … keys, counters) as totals: without the day, those left with one key added together. */
function totals(rows: Iterable<Value[]>, keys: number): Value[][] {
  const out = new Map<string, Value[]>()
  for (const row of rows) {
    const total = [row[0] ?? '', ...row.slice(2)]
    const id = total.slice(0, keys - 1).join('\u0000')
    const seen = out.get(id)
    if (!seen) out.set(id, total)
    else for (let i = keys - 1; i < total.length; i++) seen[i] = (seen[i] as number) + (total[i] as number)
  }
  return [...out.values()]
}

const compare = (a: Value, b: Value): number => (typeof a === 'number' && typeof b === 'number' ? a - b : a < b ? -1 : a > b ? 1 : 0)
const sorted = (rows: Iterable<Value[]>): Value[][] => [...rows].sort((a, b) => {
  for (let i = 0; i < a.length; i++) {
    const c = compare(a[i] ?? 0, b[i] ?? 0)
    if (c !== 0) return c
  }
  return 0
})
