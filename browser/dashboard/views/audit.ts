import { atLeast } from '../../../common/roles.ts'
import type { AuditAction } from '../../../src/audit/schema.ts'
import { api, type AuditLine, type AuditList, type ProjectSummary } from '../api.ts'
import { formatTime, h } from '../dom.ts'

/** Each action of the trail in words. */
const ACTION_WORDS: Record<AuditAction, string> = {
  sign_in: 'signed in', sign_in_failed: 'failed to sign in', sign_out: 'signed out', sign_in_ended: 'ended sign-ins of',
  visit_viewed: 'viewed the visit', replay_viewed: 'watched the replay of', issue_viewed: 'viewed the issue',
  erase: 'erased', keys_rotated: 'rotated the API key', upload_key_rotated: 'rotated the upload key',
  settings_changed: 'changed the settings', project_created: 'created the project', issue_status_changed: 'changed the status of',
  webhook_added: 'added a webhook', webhook_removed: 'removed a webhook',
  user_invited: 'invited', role_changed: 'changed the role of', user_removed: 'removed', user_renamed: 'renamed',
  password_link_made: 'made a password link for', password_set: 'set the password of', password_reset: 'reset the password of',
  issue_assigned: 'assigned the issue', issue_commented: 'commented on the issue', public_link_created: 'made a public replay link to',
  public_link_revoked: 'revoked a public replay link to', public_replay_viewed: 'opened the public replay of',
}
const words = (action: string): string => (ACTION_WORDS as Record<string, string | undefined>)[action] ?? action

/** A value of a line's detail as text: a string as it is, a list of strings joined, anything else as JSON. */
const valueText = (v: unknown): string =>
  typeof v === 'string' ? v : Array.isArray(v) && v.every((x) => typeof x === 'string') ? v.join(', ') : JSON.stringify(v)

/** A line's detail as plain text ("from: open; to: resolved"), put on screen as a text node, so nothing in it is markup. */
const detailText = (detail: AuditLine['detail']): string =>
  detail === null ? '' : Object.entries(detail).map(([k, v]) => `${k}: ${valueText(v)}`).join('; ')

/** The audit trail (owners: all of it; admins: their projects'), newest first, filtered in the URL, older lines on demand. */
export async function renderAudit(main: HTMLElement, params: URLSearchParams): Promise<void> {
  const { projects } = await api<{ projects: ProjectSummary[] }>('GET', '/projects')
  const name = (id: string | null) => (id === null ? '' : projects.find((p) => p.id === id)?.name ?? id)
  const project = h('select', { id: 'audit-project' }, h('option', { value: '' }, 'Every project'),
    ...projects.filter((p) => atLeast(p.role, 'admin')).map((p) => h('option', { value: p.id, selected: p.id === params.get('project') }, p.name)))
  const user = h('input', { type: 'email', id: 'audit-user', placeholder: 'ann@example.com', value: params.get('user') ?? '' })
  const since = h('input', { type: 'date', id: 'audit-since', value: params.get('since') ?? '' })
  const filters = h('form', { class: 'filters', id: 'audit-filters' },
    h('label', {}, 'Project ', project), h('label', {}, 'Person ', user), h('label', {}, 'Since ', since),
    h('button', { type: 'submit' }, 'Show'))
  filters.addEventListener('submit', (event) => {
    event.preventDefault()
    const q = new URLSearchParams()
    if (project.value) q.set('project', project.value)
    if (user.value.trim()) q.set('user', user.value.trim())
    if (since.value) q.set('since', since.value)
    location.hash = `#/audit?${q.toString()}`
  })
  const rows = h('tbody')
  const older = h('button', { type: 'button', id: 'audit-older', hidden: true }, 'Older')
  const empty = h('p', { class: 'empty', id: 'audit-none', hidden: true }, 'Nothing recorded matches.')
  main.append(h('h1', {}, 'Audit trail'),
    h('p', { class: 'hint' }, 'Who signed in, watched which replay, viewed which visit or issue, and changed what; newest first.'),
    filters,
    h('table', { class: 'list', id: 'audit' },
      h('thead', {}, h('tr', {}, ...['Time', 'Who', 'Did', 'Project', 'What', 'Detail'].map((t) => h('th', { scope: 'col' }, t)))), rows),
    empty, older)

  const query = new URLSearchParams()
  for (const key of ['project', 'user', 'since']) {
    const value = params.get(key)
    if (value) query.set(key, value)
  }
  const load = async (before: number | null) => {
    if (before !== null) query.set('before', String(before))
    const page = await api<AuditList>('GET', `/audit?${query.toString()}`)
    rows.append(...page.lines.map((line) => lineRow(line, name(line.projectId))))
    empty.hidden = rows.childElementCount > 0
    older.hidden = page.next === null
    older.onclick = page.next === null ? null : () => { void load(page.next) }
  }
  await load(null)
}

/** Where a line's target leads: the visit, replay or issue it names, when it names one. */
function target(line: AuditLine): Node | string {
  const t = line.target ?? ''
  if (line.projectId === null || t === '') return t
  const project = `#/p/${encodeURIComponent(line.projectId)}`
  if (line.action === 'visit_viewed' || line.action === 'replay_viewed') return h('a', { href: `${project}/s/${encodeURIComponent(t)}` }, t)
  if (line.action === 'issue_viewed' || line.action === 'issue_status_changed') return h('a', { href: `${project}/issues/${encodeURIComponent(t)}` }, t)
  return t
}

function lineRow(line: AuditLine, projectName: string): HTMLTableRowElement {
  return h('tr', { 'data-action': line.action },
    h('td', {}, h('time', { datetime: line.at }, formatTime(line.at))),
    h('td', { class: 'actor' }, line.actor), h('td', { class: 'action' }, words(line.action)),
    h('td', {}, projectName), h('td', { class: 'target' }, target(line)),
    h('td', { class: 'detail' }, detailText(line.detail)))
}
