import { DASHBOARD_PAGE_SIZE as PAGE } from '../../../common/limits.ts'
import { api, type IssueItem, type IssueList, type ProjectSummary } from '../api.ts'
import { formatTime, h } from '../dom.ts'

const STATUSES = [['open', 'Open'], ['resolved', 'Resolved'], ['ignored', 'Ignored'], ['', 'All']] as const
const SORTS = [['lastSeen', 'Last seen'], ['events', 'Most events'], ['sessions', 'Most visits']] as const

/** The issues list: status filter, sort and paging, all kept in the URL. */
export async function renderIssues(body: HTMLElement, project: ProjectSummary, params: URLSearchParams): Promise<void> {
  const status = params.get('status') ?? 'open'
  const sort = params.get('sort') ?? 'lastSeen'
  const offset = Math.max(0, Number(params.get('offset')) || 0)
  const base = `#/p/${encodeURIComponent(project.id)}/issues`
  const go = (next: Record<string, string | null>) => {
    const q = new URLSearchParams(params)
    for (const [k, v] of Object.entries(next)) {
      if (v === null) q.delete(k)
      else q.set(k, v)
    }
    location.hash = `${base}?${q.toString()}`
  }
  const select = (id: string, value: string, options: readonly (readonly [string, string])[], onChange: (v: string) => void) => {
    const el = h('select', { id }, ...options.map(([v, label]) => h('option', { value: v, selected: v === value }, label)))
    el.addEventListener('change', () => { onChange(el.value) })
    return el
  }
  body.append(h('form', { class: 'filters', id: 'issue-filters' },
    h('label', {}, 'Status ', select('filter-status', status, STATUSES, (v) => { go({ status: v, offset: null }) })),
    h('label', {}, 'Sort by ', select('sort', sort, SORTS, (v) => { go({ sort: v, offset: null }) }))))

  const q = new URLSearchParams({ limit: String(PAGE), offset: String(offset), sort })
  if (status) q.set('status', status)
  const page = await api<IssueList>('GET', `/projects/${encodeURIComponent(project.id)}/issues?${q.toString()}`)
  if (page.issues.length === 0) {
    body.append(h('p', { class: 'empty', id: 'no-issues' }, offset > 0 ? 'No more issues.'
      : status === 'open' ? 'No open issues: nothing is broken right now, or no errors have been reported yet.' : 'No issues match.'))
  } else {
    body.append(h('table', { class: 'list', id: 'issues' },
      h('thead', {}, h('tr', {}, ...['Issue', 'Events', 'Visits', 'First seen', 'Last seen', 'Status'].map((t) => h('th', {}, t)))),
      h('tbody', {}, ...page.issues.map((i) => row(project, i)))))
  }
  const shown = `${page.issues.length === 0 ? 0 : offset + 1}–${offset + page.issues.length}`
  body.append(h('div', { class: 'pager' },
    h('span', { id: 'issue-page-info' }, `${shown} of ${page.total} issues`),
    h('button', { type: 'button', id: 'issues-prev', disabled: offset === 0, onclick: () => { go({ offset: String(Math.max(0, offset - PAGE)) }) } }, '‹ Previous'),
    h('button', { type: 'button', id: 'issues-next', disabled: offset + PAGE >= page.total, onclick: () => { go({ offset: String(offset + PAGE) }) } }, 'Next ›')))
}

function row(project: ProjectSummary, i: IssueItem): HTMLElement {
  const href = `#/p/${encodeURIComponent(project.id)}/issues/${encodeURIComponent(i.id)}`
  return h('tr', { class: i.status === 'open' ? 'has-errors' : null },
    h('td', {}, h('a', { href, class: 'issue-title' }, i.title), h('div', { class: 'culprit' }, i.culprit ?? '')),
    h('td', { class: 'num' }, i.events),
    h('td', { class: 'num' }, i.sessions),
    h('td', {}, formatTime(i.firstSeenAt)),
    h('td', {}, formatTime(i.lastSeenAt)),
    h('td', {}, h('span', { class: `status ${i.status}` }, i.status)))
}
