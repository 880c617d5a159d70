import { DASHBOARD_PAGE_SIZE as PAGE } from '../../../common/limits.ts'
import { api, type ProjectSummary, type SessionItem } from '../api.ts'
import { formatDuration, formatTime, h } from '../dom.ts'

interface Page { total: number; limit: number; offset: number; sessions: SessionItem[] }

/** The sessions list with its date, errors-only and has-recording filters and paging, all kept in the URL. */
export async function renderSessions(body: HTMLElement, project: ProjectSummary, params: URLSearchParams): Promise<void> {
  const date = params.get('date') ?? ''
  const errors = params.get('errors') === '1'
  const recording = params.get('recording') === '1'
  const issue = params.get('issue')
  const offset = Math.max(0, Number(params.get('offset')) || 0)
  const base = `#/p/${encodeURIComponent(project.id)}/sessions`
  const go = (next: Record<string, string | null>) => {
    const q = new URLSearchParams(params)
    for (const [k, v] of Object.entries(next)) {
      if (v === null || v === '') q.delete(k)
      else q.set(k, v)
    }
    location.hash = `${base}?${q.toString()}`
  }

  const dateInput = h('input', { type: 'date', id: 'filter-date', value: date })
  const errorsBox = h('input', { type: 'checkbox', id: 'filter-errors', checked: errors })
  const recordingBox = h('input', { type: 'checkbox', id: 'filter-recording', checked: recording })
  dateInput.addEventListener('change', () => { go({ date: dateInput.value, offset: null }) })
  errorsBox.addEventListener('change', () => { go({ errors: errorsBox.checked ? '1' : null, offset: null }) })
  recordingBox.addEventListener('change', () => { go({ recording: recordingBox.checked ? '1' : null, offset: null }) })
  body.append(h('form', { class: 'filters', id: 'filters' },
    h('label', {}, 'Started on (UTC) ', dateInput),
    h('label', {}, errorsBox, ' With errors only'),
    h('label', {}, recordingBox, ' With a recording'),
    date ? h('button', { type: 'button', class: 'link', onclick: () => { go({ date: null, offset: null }) } }, 'Any date') : null,
    issue ? h('span', { id: 'filter-issue' }, 'Visits that hit ',
      h('a', { href: `#/p/${encodeURIComponent(project.id)}/issues/${encodeURIComponent(issue)}` }, 'this issue'), ' ',
      h('button', { type: 'button', class: 'link', onclick: () => { go({ issue: null, offset: null }) } }, 'Show all')) : null))

  const q = new URLSearchParams({ limit: String(PAGE), offset: String(offset) })
  if (date) q.set('date', date)
  if (errors) q.set('errors', 'true')
  if (recording) q.set('recording', 'true')
  if (issue) q.set('issue', issue)
  const page = await api<Page>('GET', `/projects/${encodeURIComponent(project.id)}/sessions?${q.toString()}`)

  if (page.sessions.length === 0) {
    body.append(h('p', { class: 'empty', id: 'no-sessions' }, offset > 0 ? 'No more sessions.'
      : 'No sessions match. Install the SDK from the API tab, or try the demo shop at /demo.'))
  } else {
    body.append(h('table', { class: 'list', id: 'sessions' },
      h('thead', {}, h('tr', {}, ...['Last activity', 'Duration', 'Country', 'Events', 'Errors', 'Slow', 'Replay', 'Browser'].map((t) => h('th', {}, t)))),
      h('tbody', {}, ...page.sessions.map((s) => row(project, s)))))
  }
  const shown = `${page.sessions.length === 0 ? 0 : offset + 1}–${offset + page.sessions.length}`
  const total = String(page.total)
  body.append(h('div', { class: 'pager' },
    h('span', { id: 'page-info' }, `${shown} of ${total} sessions`),
    h('button', { type: 'button', id: 'prev', disabled: offset === 0, onclick: () => { go({ offset: String(Math.max(0, offset - PAGE)) }) } }, '‹ Newer'),
    h('button', { type: 'button', id: 'next', disabled: offset + PAGE >= page.total,
      onclick: () => { go({ offset: String(offset + PAGE) }) } }, 'Older ›')))
}

function row(project: ProjectSummary, s: SessionItem): HTMLElement {
  const href = `#/p/${encodeURIComponent(project.id)}/s/${encodeURIComponent(s.id)}`
  return h('tr', { class: s.events.errors > 0 ? 'has-errors' : null },
    h('td', {}, h('a', { href, class: 'session-link' }, formatTime(s.lastSeenAt))),
    h('td', {}, formatDuration(Date.parse(s.lastSeenAt) - Date.parse(s.startedAt))),
    h('td', {}, s.country ?? '—'),
    h('td', { class: 'num' }, s.events.total),
    h('td', { class: s.events.errors > 0 ? 'num bad' : 'num' }, s.events.errors),
    h('td', { class: 'num' }, s.events.slow),
    h('td', {}, s.recording.available ? h('a', { href, class: 'replay-link' }, `▶ ${s.recording.chunks}`) : '—'),
    h('td', { class: 'ua', title: s.userAgent ?? '' }, browserName(s.userAgent)))
}

/** A short browser and OS label from a User-Agent, for the list only (the full string is in the title). */
export function browserName(ua: string | null): string {
  if (!ua) return '—'
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /Chrome\//.test(ua) ? 'Chrome'
    : /Safari\//.test(ua) ? 'Safari' : 'Other'
  const os = /Windows/.test(ua) ? 'Windows' : /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS'
    : /Mac OS X/.test(ua) ? 'macOS' : /Linux/.test(ua) ? 'Linux' : ''
  return os ? `${browser} · ${os}` : browser
}
