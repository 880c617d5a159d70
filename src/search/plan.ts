/**
 * The search planner: how a filtered page of the list is read, decided from counts alone (no database), so each of
 * its ways is chosen by one pure function on both engines. list.ts reads the counts and runs the plan.
 */
import { SEARCH_TEXT_MATCH_LIMIT, SEARCH_TEXT_PROBE_MAX } from './limits.ts'
import type { PlanCosts } from '../db/dialect.ts'
import type { SessionPage } from './filters.ts'

/** A filter a count or a page can start from: its own index lists its visits (`ids`: the text filters' matches). */
export type Driver = { term: string } | { user: string } | { issue: string } | { ids: readonly string[] }

/**
 * How a page is read. `order` walks the lastSeenAt index and checks each visit against the filters (`sparse`: taking
 * only keys, the page's rows read last by id, when few of the visits walked match). `filter` starts from `driver`,
 * probes the other filters on its visits and reads the rows of those that pass; without a driver, a from/to range's
 * own index leads. `listed` lists the driver's visits once and walks the order probing that list. `none`: a page past
 * the last match, read without a statement. `refuse`: the text filter at index `text` matched too many texts to count.
 */
export type Plan =
  | { drive: 'order'; sparse?: boolean }
  | { drive: 'filter'; driver?: Driver }
  | { drive: 'listed'; driver: Driver; sparse?: boolean }
  | { drive: 'none' }
  | { drive: 'refuse'; text: number }

/** The plans that read a page from the filters as they are (list.ts listSessions). */
export type PagePlan = Extract<Plan, { drive: 'order' | 'filter' }>

/** What a plan is decided from, read before the page. */
export interface PlanCounts {
  /** Rows of text each text filter matched in the trigram index, in order; reading stops at the first too broad. */
  texts?: readonly number[]
  /** The visits matching every filter in the range. */
  total: number
  /** The visits in the range (needed only when `total` is past the page's offset). */
  visits: number
  /** The filter the fewest visits match, and how many that is (`size`). */
  driver?: Driver
  size: number
  /** Filters each visit a walk passes is checked against. */
  probes: number
  /** A from/to range: `day` when it is exactly one UTC day, which has its own list order. */
  range?: 'day' | 'span'
}

/** Visits a walk passes for each row of its page from which it reads keys first (a sparse walk). */
export const SPARSE_WALK = 8

/** The first text filter whose matches are too many to count exactly at once, if any. */
export const tooBroadText = (texts: readonly number[] = []): number | undefined => {
  const at = texts.findIndex((rows) => rows > SEARCH_TEXT_MATCH_LIMIT)
  return at < 0 ? undefined : at
}

/** Whether the text filters are read from the trigram index: not when another filter or the range leaves few visits to read them on. */
export const readsTextIndex = (fewest: number, inRange: number): boolean => Math.min(fewest, inRange) > SEARCH_TEXT_PROBE_MAX

/**
 * The cheapest way to read `page`, in probes of an index by id: walking the list order probes each filter on the
 * entries it passes until the page is full; starting from the driver probes the others on its visits and reads the
 * rows that pass (with a from/to range, which only the row tells, every one of the driver's).
 */
export function plan(counts: PlanCounts, page: SessionPage, costs: PlanCosts): Plan {
  const text = tooBroadText(counts.texts)
  if (text !== undefined) return { drive: 'refuse', text }
  const { total, visits, driver, size, probes, range } = counts
  if (page.offset >= total) return { drive: 'none' }
  // After a cursor the walk starts at its key: its offset (0) is the depth that counts.
  const entries = Math.min(visits, (page.limit + page.offset) * visits / Math.max(total, 1))
  const walked = entries * probes
  const sparse = visits >= SPARSE_WALK * total
  if (driver === undefined) return range === 'span' && probes > 0 ? { drive: 'filter' } : { drive: 'order', sparse }
  const fromDriver = size * (probes - 1) + (range === undefined ? total : size) * costs.rowRead
  const listing = 'ids' in driver ? null : costs.listed
  const listed = listing && size <= listing.mostVisits
    ? size * listing.perVisit + entries * (listing.perEntry + (probes - 1) * Math.min(1, size / Math.max(visits, 1))) : Infinity
  if (listed < Math.min(fromDriver, walked)) return { drive: 'listed', driver, sparse }
  return fromDriver < walked ? { drive: 'filter', driver } : { drive: 'order', sparse }
}
