import { DASHBOARD_PAGE_SIZE as PAGE, MAX_SEARCH_LENGTH, MIN_SEARCH_LENGTH } from '../../../common/limits.ts'
import { ratingOf, VITAL_NAMES, type VitalName } from '../../../common/vitals.ts'
import { api, type PageItem, type PageList, type PageMetric, type ProjectSummary } from '../api.ts'
import { h, pagePath, plural, stackedTable } from '../dom.ts'
import { RATING_LABEL, vitalValue } from './vitals.ts'

const SORTS = [['views', 'Most views'], ['lcp', 'Slowest LCP'], ['inp', 'Slowest INP'], ['cls', 'Worst CLS']] as const
const KEYS = { LCP: 'lcp', INP: 'inp', CLS: 'cls', FCP: 'fcp', TTFB: 'ttfb' } as const satisfies Record<VitalName, keyof PageItem>
const DAY_MS = 86_400_000
/** A UTC day (YYYY-MM-DD) `days` days after `day`. */
const addDays = (day: string, days: number): string => new Date(Date.parse(day) + days * DAY_MS).toISOString().slice(0, 10)

/**
 * The Pages tab: each page's views, the 75th percentile of each Core Web Vital coloured by its rating, its rage and dead
 * clicks and errors, and a link to the visits that suffered there. The range (UTC days, both included), the sort and
 * the page of the list are kept in the URL, the range as the API spells it (`to` is the day after the last).
 */
export async function renderPages(body: HTMLElement, project: ProjectSummary, params: URLSearchParams): Promise<void> {
  const sort = params.get('sort') ?? 'views'
  const from = params.get('from') ?? ''
  const to = params.get('to') ?? ''
  const offset = Math.max(0, Number(params.get('offset')) || 0)
  const go = (next: Record<string, string>) => {
    const q = new URLSearchParams(Object.entries({ sort, from, to, ...next }).filter(([k, v]) => v !== '' && !(k === 'sort' && v === 'views')))
    location.hash = `#/p/${encodeURIComponent(project.id)}/pages?${q.toString()}`
  }
  const sortBy = h('select', { id: 'pages-sort' }, ...SORTS.map(([v, label]) => h('option', { value: v, selected: v === sort }, label)))
  sortBy.addEventListener('change', () => { go({ sort: sortBy.value }) })
  const fromDay = h('input', { type: 'date', id: 'pages-from', value: from.slice(0, 10) })
  const toDay = h('input', { type: 'date', id: 'pages-to', value: to === '' ? '' : addDays(to.slice(0, 10), -1) })
  const range = h('form', { class: 'filters', id: 'pages-filters' },
    h('label', {}, 'From ', fromDay), h('label', {}, 'To ', toDay), h('button', { type: 'submit' }, 'Show'),
    h('label', {}, 'Sort by ', sortBy))
  range.addEventListener('submit', (event) => {
    event.preventDefault()
    go({ from: fromDay.value, to: toDay.value === '' ? '' : addDays(toDay.value, 1) })
  })
  body.append(range, h('p', { class: 'hint', id: 'pages-help' },
    'Days are UTC, both included; none: every day kept. Each vital is its 75th percentile over the page\'s views, coloured and labelled '
    + 'by web.dev\'s rating (hover for how many were good, needs improvement and poor). Watch worst visits lists the visits that opened '
    + 'the page (or one under it) and had its worst trouble — its most often poor vital, else rage clicks, dead clicks, errors, on any of '
    + 'their pages — started in the range.'))

  const q = new URLSearchParams({ limit: String(PAGE), offset: String(offset), sort })
  for (const [k, v] of Object.entries({ from, to })) if (v !== '') q.set(k, v)
  const list = await api<PageList>('GET', `/projects/${encodeURIComponent(project.id)}/pages?${q.toString()}`)
  if (list.pages.length === 0) {
    body.append(h('p', { class: 'empty', id: 'no-pages' }, offset > 0 ? 'No more pages.'
      : 'No page views in this range: the SDK counts each page a visitor opens, with its vitals, rage and dead clicks.'))
    return
  }
  const names = ['Page', 'Views', ...VITAL_NAMES, 'Rage clicks', 'Dead clicks', 'Errors', '']
  body.append(stackedTable('pages', names, list.pages.map((p) => pageRow(project, p, { from, to }))))
  body.append(h('nav', { class: 'pager', 'aria-label': 'Pages of the list' },
    h('span', { id: 'pages-info', role: 'status' }, `${offset + 1}–${offset + list.pages.length} of ${plural(list.total, 'page')}`),
    h('button', { type: 'button', id: 'pages-prev', disabled: offset === 0, onclick: () => { go({ offset: String(Math.max(0, offset - PAGE)) }) } }, '‹ Previous'),
    h('button', { type: 'button', id: 'pages-next', disabled: offset + PAGE >= list.total, onclick: () => { go({ offset: String(offset + PAGE) }) } }, 'Next ›')))
}

/** A page as a row: its path, views, each vital's p75 with its rating spread, its frustrated clicks and errors, and its worst visits. */
function pageRow(project: ProjectSummary, p: PageItem, range: { from: string; to: string }): HTMLTableRowElement {
  const count = (n: number) => h('td', { class: n > 0 ? 'num bad' : 'num' }, n.toLocaleString('en-US'))
  const worst = worstVisits(p)
  const q = new URLSearchParams({ ...worst?.params, ...Object.fromEntries(Object.entries(range).filter(([, v]) => v !== '')) })
  return h('tr', { 'data-url': p.url },
    h('td', { class: 'clip', title: p.url }, pagePath(p.url)),
    h('td', { class: 'num' }, p.views.toLocaleString('en-US')),
    ...VITAL_NAMES.map((name) => metricCell(name, p[KEYS[name]])),
    count(p.rageClicks), count(p.deadClicks), count(p.errors),
    h('td', {}, worst === null ? null : h('a', {
      href: `#/p/${encodeURIComponent(project.id)}/sessions?${q.toString()}`, class: 'worst-visits', title: `Visits with ${worst.label} that opened this page`,
    }, 'Watch worst visits ›')))
}

/** A vital's p75 coloured by its rating, and how its values spread over the ratings, as a bar and in words. */
function metricCell(name: VitalName, m: PageMetric): HTMLTableCellElement {
  if (m.p75 === null) return h('td', {}, '—')
  const counts = [['good', m.good], ['needs-improvement', m.needsImprovement], ['poor', m.poor]] as const
  const words = counts.map(([rating, n]) => `${n.toLocaleString('en-US')} ${RATING_LABEL[rating]}`).join(', ')
  const bar = h('span', { class: 'spread', role: 'img', 'aria-label': words, title: words },
    ...counts.map(([rating, n]) => h('span', { class: rating, style: `flex-grow:${n}` })))
  return h('td', { class: 'metric' }, vitalValue(name, m.p75, ratingOf(name, m.p75), `p75 of ${m.good + m.needsImprovement + m.poor}: ${words}`), bar)
}

/**
 * The sessions list's filters that find a page's worst visits, with the search that exists: the page by `url=` (a page
 * of the visit contains the text: the template up to its first `:id`, so pages under it match too), narrowed by the
 * page's worst trouble (troubleOf), which holds for the whole visit, not this page alone. Null for a page without any.
 */
export function worstVisits(p: PageItem): { params: Record<string, string>; label: string } | null {
  const trouble = troubleOf(p)
  if (trouble === null) return null
  const id = p.url.indexOf(':id')
  const page = (id < 0 ? p.url : p.url.slice(0, id)).slice(0, MAX_SEARCH_LENGTH)
  return { params: { ...(page.length >= MIN_SEARCH_LENGTH && { url: page }), ...trouble.filter }, label: trouble.label }
}

/** A page's worst trouble as a sessions filter: the vital with the most poor values, else rage clicks, dead clicks, errors. */
function troubleOf(p: PageItem): { filter: Record<string, string>; label: string } | null {
  const poorest = VITAL_NAMES.map((name) => ({ name, poor: p[KEYS[name]].poor })).sort((a, b) => b.poor - a.poor)[0]
  if (poorest !== undefined && poorest.poor > 0) return { filter: { vital: `${poorest.name}:poor` }, label: `a poor ${poorest.name}` }
  if (p.rageClicks > 0) return { filter: { type: 'RAGE_CLICK' }, label: 'rage clicks' }
  if (p.deadClicks > 0) return { filter: { type: 'DEAD_CLICK' }, label: 'dead clicks' }
  return p.errors > 0 ? { filter: { type: 'ERROR' }, label: 'errors' } : null
}
