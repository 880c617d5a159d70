import { DASHBOARD_PAGE_SIZE as PAGE } from '../../../common/limits.ts'
import { api, type IssueItem, type IssueList, type ProjectSummary } from '../api.ts'
import { h, plural, timeTag } from '../dom.ts'
import { badgeText } from './sessions.ts'

const STATUSES = [['open', 'Open'], ['resolved', 'Resolved'], ['ignored', 'Ignored'], ['', 'All']] as const
const ASSIGNEES = [['', 'Anyone'], ['me', 'Assigned to me'], ['none', 'Unassigned']] as const
const SORTS = [['lastSeen', 'Last seen'], ['events', 'Most events'], ['sessions', 'Most visits']] as const

/** The issues list: status filter, sort and paging, all kept in the URL. */
export async function renderIssues(body: HTMLElement, project: ProjectSummary, params: URLSearchParams): Promise<void> {
  const status = params.get('status') ?? 'open'
  const sort = params.get('sort') ?? 'lastSeen'
  const assignee = params.get('assignee') ?? ''
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
    h('label', {}, 'Assignee ', select('filter-assignee', assignee, ASSIGNEES, (v) => { go({ assignee: v === '' ? null : v, offset: null }) })),
    h('label', {}, 'Sort by ', select('sort', sort, SORTS, (v) => { go({ sort: v, offset: null }) }))))

  const q = new URLSearchParams({ limit: String(PAGE), offset: String(offset), sort })
  if (status) q.set('status', status)
  if (assignee) q.set('assignee', assignee)
  const page = await api<IssueList>('GET', `/projects/${encodeURIComponent(project.id)}/issues?${q.toString()}`)
  if (page.issues.length === 0) {
    body.append(h('p', { class: 'empty', id: 'no-issues' }, offset > 0 ? 'No more issues.'
      : status === 'open' ? 'No open issues: nothing is broken right now, or no errors have been reported yet.' : 'No issues match.'))
  } else {
    body.append(h('ol', { class: 'rows', id: 'issues', 'aria-label': 'Issues' }, ...page.issues.map((i) => row(project, i))))
  }
  const shown = `${page.issues.length === 0 ? 0 : offset + 1}–${offset + page.issues.length}`
  body.append(h('div', { class: 'pager' },
    h('span', { id: 'issue-page-info' }, `${shown} of ${page.total} issues`),
    h('button', { type: 'button', id: 'issues-prev', disabled: offset === 0, onclick: () => { go({ offset: String(Math.max(0, offset - PAGE)) }) } }, '‹ Previous'),
    h('button', { type: 'button', id: 'issues-next', disabled: offset + PAGE >= page.total, onclick: () => { go({ offset: String(offset + PAGE) }) } }, 'Next ›')))
}

/** An issue as a row: what broke and where, how often, how many visits, when first and last — as in the sessions list. */
function row(project: ProjectSummary, i: IssueItem): HTMLElement {
  const href = `#/p/${encodeURIComponent(project.id)}/issues/${encodeURIComponent(i.id)}`
  const sep = () => h('span', { class: 'sep', 'aria-hidden': 'true' }, ' · ')
  return h('li', { class: `visit issue-row${i.status === 'open' ? ' has-errors' : ''}`, 'data-id': i.id },
    h('a', { href, class: 'session-link issue-link-row' }, h('span', { class: 'headline' },
      h('span', { class: 'badge error' }, badgeText(i.type, null)), ' ', h('span', { class: 'message issue-title' }, i.title))),
    h('div', { class: 'visit-sub culprit' }, i.culprit ?? ''),
    h('div', { class: 'visit-meta' },
      h('span', { class: 'bad' }, plural(i.events, 'event')), sep(), plural(i.sessions, 'visit'), sep(),
      'first ', timeTag(i.firstSeenAt), sep(), 'last ', timeTag(i.lastSeenAt),
      i.assignee ? sep() : null, i.assignee ? h('span', { class: 'issue-assignee' }, i.assignee.email) : null),
    h('div', { class: 'visit-play' }, h('span', { class: `status ${i.status}` }, i.status)))
}
