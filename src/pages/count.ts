/**
 * The page counters as ingest keeps them: a step of the visit's write (src/visits/write.ts), which hands over the
 * events each batch newly stored, and applies them once for its transaction, last, with the other hot counters.
 */
import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../database.ts'
import { runReused } from '../db/reuse.ts'
import { rowsOfArrays, takesArrays } from '../db/sql.ts'
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

export type Value = string | number
/** A column written by addRows: its name and SQL type (for PostgreSQL's arrays). */
type Column = readonly [name: string, type: string]
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

/** Adds rows of day counters (project, day, the other keys, the counters) to their day table and, summed, to the totals. */
async function addDays(db: Db, c: Counters, rows: Iterable<Value[]>): Promise<void> {
  const all = sorted(rows)
  await addRows(db, c.days, [PROJECT, DAY, ...c.keys.slice(1)], c.counters, all)
  await addTotals(db, c, all)
}

/** Adds rows of day counters, summed without their day, to the totals: negative counts take from them (retention). */
export const addTotals = (db: Db, c: Counters, rows: Iterable<Value[]>): Promise<void> =>
  addRows(db, c.totals, c.keys, c.counters, sorted(totals(rows, c.keys.length + 1)))

/**
 * Changes to the page counters, gathered during a transaction and written once at its end: every counter row of
 * page_days and page_vitals with the same change to its page's page_totals and page_vital_totals row, so each total
 * stays the sum of its stored days. Rows are written sorted, as the day counters are (src/search/days.ts), so
 * concurrent PostgreSQL writers take them in one order.
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

  async apply(db: Db): Promise<void> {
    const days = new Map<string, Value[]>()
    const vitals = new Map<string, Value[]>()
    const bump = (rows: Map<string, Value[]>, key: Value[], counters: number, counter: number) => {
      const id = key.join('\u0000')
      let row = rows.get(id)
      if (!row) rows.set(id, (row = [...key, ...new Array<number>(counters).fill(0)]))
      row[key.length + counter] = (row[key.length + counter] as number) + 1
    }
    for (const { projectId, events } of this.#stored) {
      for (const e of events) {
        const counter = COUNTED[e.type]
        if (counter === undefined || !e.url) continue
        const page = pageOf(e.url)
        if (page === '') continue
        const day = dayOf(e.createdAt)
        if (counter === 'vitals') {
          const { name, value } = e.detail ?? {}
          if (name === undefined || value === undefined || !isVitalName(name)) continue
          bump(vitals, [projectId, day, name, page, vitalBucket(value)], 1, 0)
        }
        bump(days, [projectId, day, page], COUNTERS.length, COUNTERS.indexOf(counter))
      }
    }
    this.#stored.length = 0
    if (days.size === 0) return
    // Every transaction takes the rows in one order: day rows before totals, pages before vitals, each table's sorted.
    await addDays(db, PAGE_COUNTERS, days.values())
    if (vitals.size > 0) await addDays(db, VITAL_COUNTERS, vitals.values())
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

/** Rows per SQLite statement: a row count is written as a sum of these, so each table has a few statements to prepare. */
const SIZES = [64, 16, 4, 1] as const

/**
 * Adds rows (their key columns, then their counters) into `table`'s counters, creating the rows that are missing:
 * on PostgreSQL one statement of a column's values per parameter, on SQLite rows of VALUES (SIZES). Keys are unique.
 */
async function addRows(db: Db, table: string, keys: readonly Column[], counters: readonly Column[], rows: readonly Value[][]): Promise<void> {
  if (rows.length === 0) return
  const columns = [...keys, ...counters]
  const upsert = (values: RawBuilder<unknown>) => ({
    compile: () => sql`insert into ${sql.table(table)} (${sql.join(columns.map(([c]) => sql.ref(c)))}) ${values}
      on conflict (${sql.join(keys.map(([c]) => sql.ref(c)))}) do update set
      ${sql.join(counters.map(([c]) => sql`${sql.ref(c)} = ${sql.ref(`${table}.${c}`)} + ${sql.ref(`excluded.${c}`)}`))}`.compile(db),
  })
  if (takesArrays(db)) {
    const arrays = columns.map((_, k) => rows.map((r) => r[k]))
    await runReused(db, `add ${table} as arrays`, arrays, () => upsert(rowsOfArrays(columns.map(([, type], k) => [arrays[k] ?? [], type]))))
    return
  }
  for (let i = 0; i < rows.length;) {
    const size = SIZES.find((s) => s <= rows.length - i) ?? 1
    const chunk = rows.slice(i, i + size)
    i += size
    await runReused(db, `add ${table} ${size}`, chunk.flat(), () => upsert(sql`values ${sql.join(chunk.map((r) => sql`(${sql.join(r)})`))}`))
  }
}
