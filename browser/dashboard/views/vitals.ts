import { formatVital, VITAL_NAMES, type VitalName, type VitalRating } from '../../../common/vitals.ts'
import type { SessionEvent } from '../api.ts'
import { h, pagePath, stackedTable } from '../dom.ts'

/** A rating in words beside its colour, so it reads without colour too. */
export const RATING_LABEL: Readonly<Record<VitalRating, string>> = { good: 'good', 'needs-improvement': 'needs improvement', poor: 'poor' }

/** A metric's value as people read it, coloured and labelled by its rating; `title` (an element, counts) on hover. */
export const vitalValue = (name: VitalName, value: number, rating: VitalRating, title?: string): HTMLElement =>
  h('span', { class: `vital ${rating}`, title }, formatVital(name, value), ' ', h('span', { class: 'rating' }, RATING_LABEL[rating]))

/**
 * A visit's Core Web Vitals, a row per page it measured and a column per metric it has: the last value each page
 * reported (the SDK reports a metric again as it grows), with the element it names on hover. Null without any.
 */
export function visitVitals(events: readonly SessionEvent[]): HTMLElement | null {
  const pages = new Map<string, Map<VitalName, SessionEvent>>()
  for (const e of events) {
    if (e.type !== 'WEB_VITAL' || e.name === undefined || e.value === undefined) continue
    const url = e.url ?? ''
    const metrics = pages.get(url) ?? new Map<VitalName, SessionEvent>()
    metrics.set(e.name, e)
    pages.set(url, metrics)
  }
  if (pages.size === 0) return null
  const names = VITAL_NAMES.filter((name) => [...pages.values()].some((m) => m.has(name)))
  const rows = [...pages].map(([url, metrics]) => h('tr', {},
    h('td', { class: 'clip', title: url }, url === '' ? '—' : pagePath(url)),
    ...names.map((name) => {
      const e = metrics.get(name)
      return h('td', {}, e?.value === undefined || e.rating === undefined ? '—'
        : vitalValue(name, e.value, e.rating, e.element === undefined ? undefined : `Element: ${e.element}`))
    })))
  return h('section', { class: 'visit-vitals', 'aria-labelledby': 'vitals-head' },
    h('h2', { id: 'vitals-head' }, 'Web vitals'), stackedTable('session-vitals', ['Page', ...names], rows))
}
