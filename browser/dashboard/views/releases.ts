import { DASHBOARD_PAGE_SIZE as PAGE } from '../../../common/limits.ts'
import { api, type ProjectSummary, type ReleaseDetail, type ReleaseItem, type ReleaseList } from '../api.ts'
import { h, plural, timeTag } from '../dom.ts'
import { dayChart } from './issue.ts'
import { badgeText } from './sessions.ts'

/** A rate as the list shows it: a percentage with two decimals (99.73 %), a dash when there is nothing to divide. */
const percent = (rate: number | null): string => (rate === null ? '—' : `${(Math.floor(rate * 10_000) / 100).toFixed(2)} %`)

/**
 * Release health: the releases newest first, each with its crash-free rates; `release=` (and `environment=`) in the URL
 * opens one with its adoption over time and the issues it opened, linked to their visits.
 */
export async function renderReleases(body: HTMLElement, project: ProjectSummary, params: URLSearchParams): Promise<void> {
  const base = `/projects/${encodeURIComponent(project.id)}/releases`
  const release = params.get('release')
  if (release !== null) {
    await renderRelease(body, project, release, params.get('environment'))
    return
  }
  const offset = Math.max(0, Number(params.get('offset')) || 0)
  const page = await api<ReleaseList>('GET', `${base}?${new URLSearchParams({ limit: String(PAGE), offset: String(offset) }).toString()}`)
  if (page.releases.length === 0) {
    body.append(h('p', { class: 'empty', id: 'no-releases' }, offset > 0 ? 'No more releases.'
      : 'No releases yet: pass `release` to Sessionwatch.init, or point a Sentry SDK with release health at the project\'s DSN.'))
    return
  }
  body.append(h('ol', { class: 'rows', id: 'releases', 'aria-label': 'Releases' }, ...page.releases.map((r) => row(project, r))))
  const hash = (at: number) => `#/p/${encodeURIComponent(project.id)}/releases?offset=${at}`
  body.append(h('div', { class: 'pager' },
    h('span', { id: 'release-page-info' }, `${offset + 1}–${offset + page.releases.length} of ${page.total} releases`),
    h('button', { type: 'button', id: 'releases-prev', disabled: offset === 0, onclick: () => { location.hash = hash(Math.max(0, offset - PAGE)) } }, '‹ Previous'),
    h('button', { type: 'button', id: 'releases-next', disabled: offset + PAGE >= page.total, onclick: () => { location.hash = hash(offset + PAGE) } }, 'Next ›')))
}

const releaseHash = (project: ProjectSummary, r: ReleaseItem): string => {
  const q = new URLSearchParams({ release: r.release })
  // Always named, empty for none: a release may have sessions in an environment and without one.
  q.set('environment', r.environment ?? '')
  return `#/p/${encodeURIComponent(project.id)}/releases?${q.toString()}`
}

/** A release as a row: its name and environment, crash-free sessions and users, and how many sessions, users and new issues. */
function row(project: ProjectSummary, r: ReleaseItem): HTMLElement {
  const sep = () => h('span', { class: 'sep', 'aria-hidden': 'true' }, ' · ')
  return h('li', { class: `visit release-row${r.crashed > 0 ? ' has-errors' : ''}`, 'data-release': r.release },
    h('a', { href: releaseHash(project, r), class: 'session-link' }, h('span', { class: 'headline' },
      h('span', { class: 'message release-name' }, r.release), ' ', r.environment === null ? null : h('span', { class: 'badge' }, r.environment))),
    h('div', { class: 'visit-sub' },
      h('span', { class: 'crash-free' }, `${percent(r.crashFreeRate)} crash-free sessions`),
      h('span', { class: 'crash-free-users' }, `${percent(r.crashFreeUsers)} crash-free users`)),
    h('div', { class: 'visit-meta' },
      plural(r.sessions, 'session'), sep(), plural(r.users, 'user'), sep(),
      h('span', { class: r.newIssues > 0 ? 'bad' : null }, plural(r.newIssues, 'new issue')), sep(),
      'first ', timeTag(r.firstSeenAt), sep(), 'last ', timeTag(r.lastSeenAt)))
}

async function renderRelease(body: HTMLElement, project: ProjectSummary, release: string, environment: string | null): Promise<void> {
  const q = environment === null ? '' : `?environment=${encodeURIComponent(environment)}`
  const detail = await api<ReleaseDetail>('GET', `/projects/${encodeURIComponent(project.id)}/releases/${encodeURIComponent(release)}${q}`)
  const r = detail
  const projectHash = `#/p/${encodeURIComponent(project.id)}`
  body.append(
    h('p', {}, h('a', { href: `${projectHash}/releases` }, '‹ All releases')),
    h('h2', { id: 'release-title' }, r.release, ' ', r.environment === null ? null : h('span', { class: 'badge' }, r.environment)),
    h('ol', { class: 'rows' }, row(project, r)),
    h('h2', {}, 'Adoption: sessions per day'),
    dayChart('release-adoption', 'sessions', detail.days.map((d) => ({ day: d.day, count: d.sessions }))),
    h('h2', {}, 'New issues in this release'))
  if (detail.issues.length === 0) {
    body.append(h('p', { class: 'empty', id: 'no-release-issues' }, 'No issue was first seen in this release.'))
    return
  }
  body.append(h('ol', { class: 'rows', id: 'release-issues', 'aria-label': 'New issues' }, ...detail.issues.map((i) => h('li', { class: 'visit issue-row' },
    h('a', { href: `${projectHash}/issues/${encodeURIComponent(i.id)}`, class: 'session-link' },
      h('span', { class: 'headline' }, h('span', { class: 'badge error' }, badgeText(i.type, null)), ' ', h('span', { class: 'message issue-title' }, i.title))),
    h('div', { class: 'visit-meta' }, plural(i.events, 'event'), ' · ',
      h('a', { href: `${projectHash}/sessions?issue=${encodeURIComponent(i.id)}` }, `${plural(i.sessions, 'visit')} ›`))))))
}
