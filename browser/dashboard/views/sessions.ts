import { DASHBOARD_PAGE_SIZE as PAGE, MAX_SEARCH_LENGTH, MIN_SEARCH_LENGTH } from '../../../common/limits.ts'
import { VITAL_NAMES, VITAL_RATINGS } from '../../../common/vitals.ts'
import { api, ApiError, type Headline, type ProjectSummary, type SessionBasics, type SessionItem, type SessionRow, type SessionRowList } from '../api.ts'
import { formatDuration, h, pagePath, plural, timeTag } from '../dom.ts'

/**
 * The filters a person adds one by one; each is the read API's search parameter of the same name, and the
 * dashboard's URL carries it as the API spells it (`tag` as `tag.<key>=<value>`), so a link and a script agree.
 */
const FILTERS = [
  { param: 'user', label: 'User id', placeholder: 'user-42' },
  { param: 'url', label: 'Page URL contains', placeholder: '/checkout' },
  { param: 'type', label: 'Has event type', placeholder: 'USER_REPORT' },
  { param: 'status', label: 'HTTP status', placeholder: '502 or 5xx' },
  { param: 'vital', label: 'Web vital', placeholder: 'INP:poor' },
  { param: 'country', label: 'Country', placeholder: 'DE' },
  { param: 'browser', label: 'Browser', placeholder: 'Chrome' },
  { param: 'os', label: 'OS', placeholder: 'iOS' },
  { param: 'tag', label: 'Tag', placeholder: 'plan=pro' },
  { param: 'date', label: 'Started on (UTC day)', placeholder: 'YYYY-MM-DD' },
] as const

/** One-press filters for what a triager looks for first. */
const QUICK = [
  { param: 'errors', value: 'true', label: 'With errors' },
  { param: 'type', value: 'USER_REPORT', label: 'Visitor reports' },
  { param: 'status', value: '5xx', label: 'Server errors (5xx)' },
  { param: 'type', value: 'RAGE_CLICK', label: 'Rage clicks' },
  { param: 'type', value: 'DEAD_CLICK', label: 'Dead clicks' },
  { param: 'vital', value: 'LCP:poor', label: 'Poor LCP' },
  { param: 'recording', value: 'true', label: 'With replay' },
] as const

/** The list's parameters the URL may carry to the API (the read API's names). */
const SEARCH_PARAMS = new Set(['q', 'errors', 'recording', 'issue', 'from', 'to', ...FILTERS.map((f) => f.param)])
const isSearchParam = (name: string) => SEARCH_PARAMS.has(name) || name.startsWith('tag.')
const LABELS: Record<string, string> = {
  q: 'Text', errors: 'With errors', recording: 'With replay', issue: 'Issue', from: 'Started from', to: 'Started before',
  ...Object.fromEntries(FILTERS.map((f) => [f.param, f.label])),
}

/** The sessions list: a search box and filter chips that are the read API's parameters, kept in the URL, and rows that say what broke. */
export async function renderSessions(body: HTMLElement, project: ProjectSummary, params: URLSearchParams, demo: boolean): Promise<void> {
  // Links from before the chips said errors=1 and recording=1.
  for (const flag of ['errors', 'recording']) if (params.get(flag) === '1') params.set(flag, 'true')
  const offset = Math.max(0, Number(params.get('offset')) || 0)
  const base = `#/p/${encodeURIComponent(project.id)}/sessions`
  const go = (next: Record<string, string | null>) => {
    const q = new URLSearchParams(params)
    for (const [k, v] of Object.entries(next)) {
      if (v === null || v === '') q.delete(k)
      else q.set(k, v)
    }
    if (!('offset' in next)) q.delete('offset')
    location.hash = `${base}?${q.toString()}`
  }
  const active = [...params.entries()].filter(([name, value]) => isSearchParam(name) && value !== '')
  body.append(searchBar(params, go), chips(project, active, go))

  const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) })
  // Appended: a filter given twice (vital=LCP:poor&vital=INP:poor) must hold twice.
  for (const [name, value] of active) query.append(name, value)
  let page: SessionRowList
  try {
    page = await api<SessionRowList>('GET', `/projects/${encodeURIComponent(project.id)}/sessions?${query.toString()}`)
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error
    body.append(h('p', { class: 'error', role: 'alert', id: 'search-error' }, error.message))
    return
  }

  if (page.sessions.length === 0) body.append(emptyList(project, offset, active.length > 0, demo, () => { location.hash = base }))
  else body.append(h('ol', { class: 'rows', id: 'sessions', 'aria-label': 'Visits, most recent activity first' }, ...page.sessions.map((s) => sessionRow(project, s))))
  const shown = `${page.sessions.length === 0 ? 0 : offset + 1}–${offset + page.sessions.length}`
  body.append(h('nav', { class: 'pager', 'aria-label': 'Pages' },
    h('span', { id: 'page-info', role: 'status' }, `${shown} of ${page.total.toLocaleString('en-US')} sessions`),
    h('button', { type: 'button', id: 'prev', disabled: offset === 0, onclick: () => { go({ offset: String(Math.max(0, offset - PAGE)) }) } }, '‹ Newer'),
    h('button', { type: 'button', id: 'next', disabled: offset + PAGE >= page.total,
      onclick: () => { go({ offset: String(offset + PAGE) }) } }, 'Older ›')))
}

function searchBar(params: URLSearchParams, go: (next: Record<string, string | null>) => void): HTMLElement {
  const q = h('input', {
    type: 'search', id: 'search-q', name: 'q', value: params.get('q') ?? '', maxlength: MAX_SEARCH_LENGTH,
    placeholder: 'Search messages, URLs, user ids…', 'aria-describedby': 'search-help',
  })
  const search = h('form', { role: 'search', id: 'search', class: 'search' },
    h('label', { for: 'search-q', class: 'visually-hidden' }, 'Search visits'), q, h('button', { type: 'submit' }, 'Search'),
    h('p', { id: 'search-help', class: 'hint' }, `Every word must occur in the visit (${MIN_SEARCH_LENGTH}+ characters); "quote" a phrase.`))
  search.addEventListener('submit', (event) => {
    event.preventDefault()
    go({ q: q.value.trim() })
  })

  const kind = h('select', { id: 'filter-kind' }, ...FILTERS.map((f) => h('option', { value: f.param }, f.label)))
  const value = h('input', { id: 'filter-value', required: true, maxlength: MAX_SEARCH_LENGTH, placeholder: FILTERS[0].placeholder })
  const problem = h('span', { class: 'error', role: 'alert', id: 'filter-problem' })
  // A vital filter's values are few: offered as suggestions (METRIC:RATING).
  const vitals = h('datalist', { id: 'vital-values' }, ...VITAL_NAMES.flatMap((name) => VITAL_RATINGS.map((rating) => h('option', { value: `${name}:${rating}` }))))
  kind.addEventListener('change', () => {
    const f = FILTERS.find((x) => x.param === kind.value)
    value.placeholder = f?.placeholder ?? ''
    value.type = kind.value === 'date' ? 'date' : 'text'
    if (kind.value === 'vital') value.setAttribute('list', vitals.id)
    else value.removeAttribute('list')
  })
  const add = h('form', { id: 'add-filter', class: 'add-filter' },
    h('label', {}, 'Filter by ', kind), h('label', {}, 'Value ', value), vitals, h('button', { type: 'submit' }, 'Add filter'), problem)
  add.addEventListener('submit', (event) => {
    event.preventDefault()
    const v = value.value.trim()
    if (kind.value !== 'tag') {
      go({ [kind.value]: v })
      return
    }
    const eq = v.indexOf('=')
    if (eq < 1 || eq === v.length - 1) {
      problem.textContent = 'A tag filter is key=value, e.g. plan=pro.'
      return
    }
    go({ [`tag.${v.slice(0, eq)}`]: v.slice(eq + 1) })
  })

  const quick = h('div', { class: 'quick', role: 'group', 'aria-label': 'Quick filters' }, ...QUICK.map((f) => {
    const on = params.get(f.param) === f.value
    return h('button', {
      type: 'button', class: 'chip toggle', 'aria-pressed': String(on), id: `quick-${f.param}-${f.value.toLowerCase()}`,
      onclick: () => { go({ [f.param]: on ? null : f.value }) },
    }, f.label)
  }))
  return h('div', { class: 'toolbar', id: 'filters' }, search, quick, add)
}

/** The active filters, each removable; quick filters that are on show as pressed toggles instead. */
function chips(project: ProjectSummary, active: [string, string][], go: (next: Record<string, string | null>) => void): HTMLElement {
  const shown = active.filter(([name, value]) => !QUICK.some((f) => f.param === name && f.value === value))
  const list = h('ul', { class: 'chips', id: 'active-filters', 'aria-label': 'Active filters' }, ...shown.map(([name, value]) => {
    const label = name.startsWith('tag.') ? `Tag ${name.slice(4)}` : LABELS[name] ?? name
    const text = name === 'issue'
      ? h('a', { href: `#/p/${encodeURIComponent(project.id)}/issues/${encodeURIComponent(value)}` }, 'this issue')
      : value
    return h('li', { class: 'chip', 'data-param': name }, h('span', { class: 'chip-label' }, `${label}: `), text,
      h('button', { type: 'button', class: 'chip-remove', 'aria-label': `Remove filter ${label}`, onclick: () => { go({ [name]: null }) } }, '×'))
  }))
  if (shown.length > 1) {
    list.append(h('li', {}, h('button', {
      type: 'button', class: 'link', id: 'clear-filters', onclick: () => { go(Object.fromEntries(active.map(([n]) => [n, null]))) },
    }, 'Clear all')))
  }
  return list
}

function emptyList(project: ProjectSummary, offset: number, filtered: boolean, demo: boolean, clearAll: () => void): HTMLElement {
  if (offset > 0) return h('p', { class: 'empty', id: 'no-sessions' }, 'No more sessions.')
  if (filtered) {
    return h('p', { class: 'empty', id: 'no-sessions' }, 'No visits match these filters. ',
      h('button', { type: 'button', class: 'link', onclick: clearAll }, 'Show every visit'))
  }
  // The demo shop, where the server serves it (DEMO), records into the project whose ingest key it is given: this one.
  return h('div', { class: 'empty card', id: 'no-sessions' },
    h('p', {}, h('b', {}, 'No visits recorded yet.')),
    h('p', {}, 'Add the SDK to your site (', h('a', { href: `#/p/${encodeURIComponent(project.id)}/api` }, 'the API tab'), ' has the snippet)',
      ...demo
        ? [', or ', h('a', { href: `/demo?key=${encodeURIComponent(project.ingestKey)}`, target: '_blank', rel: 'noopener', id: 'demo-link' },
          'open the demo shop for this project'), ' and press its buttons.']
        : ['.']))
}

/** What a headline event says in one line: a failed request as method, page and status; a report in quotes. */
export function headlineText(e: Headline): string {
  if (e.type === 'HTTP_ERROR') return `${e.method ?? ''} ${e.url === null ? '' : pagePath(e.url)} → ${e.statusCode ?? 'failed'}`.trim()
  if (e.type === 'USER_REPORT') return `“${e.message ?? ''}”`
  return e.message ?? e.url ?? e.type
}

/** A headline event's badge: HTTP and its status for failed requests, else its type in words ("Rage click"). */
export function badgeText(type: string, statusCode: number | null): string {
  if (type === 'HTTP_ERROR') return statusCode === null ? 'HTTP error' : `HTTP ${statusCode}`
  if (type === 'USER_REPORT') return 'Report'
  const words = type.replace(/_/g, ' ').toLowerCase()
  return `${words.slice(0, 1).toUpperCase()}${words.slice(1)}`
}

const badge = (e: Headline) =>
  h('span', { class: `badge ${e.type === 'USER_REPORT' ? 'report' : 'error'}` }, badgeText(e.type, e.statusCode))

/**
 * A visit as a row that says what happened: its first error (or the visitor's report), the page it entered on,
 * who it was, its counters and facts, when — relative, the absolute time on hover — and a play button when it
 * was recorded. The sessions list and an issue's visits show the same row.
 */
export function sessionRow(project: ProjectSummary, s: SessionBasics | SessionItem | SessionRow): HTMLElement {
  const href = `#/p/${encodeURIComponent(project.id)}/s/${encodeURIComponent(s.id)}`
  const firstError = 'firstError' in s ? s.firstError : null
  const firstReport = 'firstReport' in s ? s.firstReport : null
  const lead = firstError ?? firstReport
  const entry = s.entryUrl === null ? null : pagePath(s.entryUrl)
  const headline = lead
    ? h('span', { class: 'headline' }, badge(lead), ' ', h('span', { class: 'message' }, headlineText(lead)))
    : h('span', { class: 'headline calm' }, s.events.errors > 0 ? plural(s.events.errors, 'error') : 'No errors', entry ? ` · ${entry}` : '')
  const counts = [
    s.events.errors > 0 ? h('span', { class: 'bad' }, plural(s.events.errors, 'error')) : null,
    s.events.slow > 0 ? h('span', { class: 'slow' }, `${s.events.slow} slow`) : null,
    plural(s.events.total, 'event'),
  ].filter((x) => x !== null)
  const facts: (Node | string)[] = [
    ...counts, formatDuration(Date.parse(s.lastSeenAt) - Date.parse(s.startedAt)),
    ...[s.country, [s.browser, s.os].filter(Boolean).join(' · ')].filter((x): x is string => Boolean(x)),
  ]
  // A rage or dead click heads a row like an error, and marks it so too.
  return h('li', { class: `visit${s.events.errors > 0 || firstError ? ' has-errors' : ''}${firstReport ? ' has-report' : ''}`, 'data-id': s.id },
    h('a', { href, class: 'session-link' }, headline),
    h('div', { class: 'visit-sub' },
      entry && lead ? h('span', { class: 'entry', title: s.entryUrl ?? '' }, entry) : null,
      s.user ? h('span', { class: 'user' }, h('span', { class: 'hint' }, 'User '), s.user.id) : null,
      firstError && firstReport ? h('span', { class: 'report-line' }, badge(firstReport), ' ', headlineText(firstReport)) : null),
    h('div', { class: 'visit-meta' }, ...joined(facts), h('span', { class: 'sep', 'aria-hidden': 'true' }, ' · '), timeTag(s.lastSeenAt)),
    // A row without recording facts (an issue's visits) links to the visit, which plays what there is.
    h('div', { class: 'visit-play' }, !('recording' in s) || s.recording.available
      ? h('a', { href, class: 'replay-link button', 'aria-label': 'Watch this visit' }, '▶ Watch')
      : h('span', { class: 'no-replay' }, 'No replay')))
}

/** Items with a dot between them, the dots hidden from screen readers. */
function joined(items: (Node | string)[]): (Node | string)[] {
  return items.flatMap((item, i) => (i === 0 ? [item] : [h('span', { class: 'sep', 'aria-hidden': 'true' }, ' · '), item]))
}
