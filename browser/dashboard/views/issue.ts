import { atLeast } from '../../../common/roles.ts'
import { api, type IssueDetail, type IssueItem, type ProjectSummary } from '../api.ts'
import { clear, formatTime, h, timeTag } from '../dom.ts'
import { assigneePicker, commentThread } from './issue-team.ts'
import { badgeText, sessionRow } from './sessions.ts'
import { stackBlock } from './stack.ts'

const ACTIONS = [['resolve', 'resolved', 'Resolve'], ['ignore', 'ignored', 'Ignore'], ['reopen', 'open', 'Reopen']] as const

/** One issue: what it is, how often, where in the code, who hit it, and its status buttons. */
export async function renderIssue(main: HTMLElement, project: ProjectSummary, id: string): Promise<void> {
  const base = `/projects/${encodeURIComponent(project.id)}/issues/${encodeURIComponent(id)}`
  const projectHash = `#/p/${encodeURIComponent(project.id)}`
  const [detail, histogram] = await Promise.all([
    api<IssueDetail>('GET', base),
    api<{ days: { day: string; events: number }[] }>('GET', `${base}/histogram`),
  ])
  const facts = h('dl', { class: 'facts', id: 'issue-facts' })
  const actions = h('div', { class: 'actions', id: 'issue-actions' })
  const show = (issue: IssueItem) => {
    clear(facts)
    facts.append(
      fact('Status', h('span', { class: `status ${issue.status}` }, issue.status)), fact('Where', issue.culprit ?? '—'),
      fact('Events', issue.events.toLocaleString('en-US')), fact('Visits', issue.sessions.toLocaleString('en-US')),
      fact('First seen', timeTag(issue.firstSeenAt)), fact('Last seen', timeTag(issue.lastSeenAt)))
    clear(actions)
    // A viewer reads; changing the status is a member's.
    for (const [action, status, label] of atLeast(project.role, 'member') ? ACTIONS : []) {
      if (status === issue.status) continue
      actions.append(h('button', {
        type: 'button', id: `issue-${action}`,
        onclick: () => {
          void api<IssueItem>('POST', `${base}/status`, { status }).then(show,
            (error: unknown) => { actions.append(h('p', { class: 'error', role: 'alert' }, error instanceof Error ? error.message : String(error))) })
        },
      }, label))
    }
  }
  main.append(
    h('p', {}, h('a', { href: `${projectHash}/issues` }, `‹ ${project.name}: issues`)),
    h('h1', { class: 'broken' }, h('span', { class: 'badge error' }, badgeText(detail.issue.type, null)), ' ', h('span', { id: 'issue-title' }, detail.issue.title)),
    facts, assigneePicker(project, base, detail.issue), actions,
    h('h2', {}, 'Occurrences, last 30 days'), dayChart('issue-histogram', 'events', histogram.days.map((d) => ({ day: d.day, count: d.events }))))
  show(detail.issue)

  main.append(h('h2', {}, 'Latest event'))
  const latest = detail.latestEvent
  if (!latest) {
    main.append(h('p', { class: 'empty' }, 'Its events are past the project\'s retention; the issue keeps its status.'))
  } else {
    const e = latest.event
    main.append(h('section', { class: 'latest', id: 'latest-event' },
      h('p', {}, formatTime(e.createdAt), ' · ',
        h('a', { href: `${projectHash}/s/${encodeURIComponent(latest.sessionId)}` }, 'open its visit')),
      e.message ? h('p', { class: 'message' }, e.message) : null,
      e.url ? h('p', {}, h('b', {}, 'URL '), e.method ? `${e.method} ` : '', e.url) : null,
      e.statusCode !== null ? h('p', {}, h('b', {}, 'Status '), e.statusCode) : null,
      stackBlock(e, 'issue-stack')))
  }

  main.append(await commentThread(project, base))

  main.append(h('h2', {}, 'Visits that hit it'))
  if (detail.sessions.length === 0) {
    main.append(h('p', { class: 'empty' }, 'None stored any more.'))
  } else {
    main.append(h('ol', { class: 'rows', id: 'issue-sessions', 'aria-label': 'Visits that hit it' }, ...detail.sessions.map((s) => sessionRow(project, s))),
      h('p', {}, h('a', { id: 'issue-all-visits', href: `${projectHash}/sessions?issue=${encodeURIComponent(id)}` }, `All visits (${detail.issue.sessions}) ›`)))
  }
}

const fact = (term: string, value: Node | string) => h('div', {}, h('dt', {}, term), h('dd', {}, value))

/** Bars of events per day; each bar says its day and count on hover and to screen readers. */
/** A bar per day of `noun`s (an issue's events, a release's sessions). */
export function dayChart(id: string, noun: string, days: { day: string; count: number }[]): HTMLElement {
  const max = Math.max(1, ...days.map((d) => d.count))
  return h('div', { class: 'histogram', id, role: 'img', 'aria-label': `${days.reduce((n, d) => n + d.count, 0)} ${noun} in ${days.length} days` },
    ...days.map((d) => h('span', {
      class: 'bar', title: `${d.day}: ${d.count} ${noun}`,
      style: `height:${Math.round((d.count / max) * 100)}%`,
    })))
}
