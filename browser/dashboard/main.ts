import { atLeast } from '../../common/roles.ts'
import { api, ApiError, setSignedOutHandler, type Me, type ProjectSummary, type ServerDefaults } from './api.ts'
import { clear, h } from './dom.ts'
import { renderApiTab } from './views/api-tab.ts'
import { renderAudit } from './views/audit.ts'
import { renderLink } from './views/link.ts'
import { renderLogin } from './views/login.ts'
import { renderPeople } from './views/people.ts'
import { renderProjects } from './views/projects.ts'
import { renderPublicReplay } from './views/public-links.ts'
import { renderIssue } from './views/issue.ts'
import { renderIssues } from './views/issues.ts'
import { renderPages } from './views/pages.ts'
import { renderReleases } from './views/releases.ts'
import { renderSession } from './views/session.ts'
import { renderSessions } from './views/sessions.ts'
import { renderSettings } from './views/settings.ts'
import { renderSignIns } from './views/sign-ins.ts'

const root = document.getElementById('app') ?? document.body

/** Whether a person may read the audit trail: admin of every project, or of one at least. */
const readsAudit = (me: Me): boolean => atLeast(me.role, 'admin') || me.projects.some((p) => atLeast(p.role, 'admin'))

/**
 * Where each hash route leads. `#/p/<project>/<tab>`, `#/p/<project>/s/<session>` and `#/p/<project>/issues/<issue>` take a
 * project; `#/login` and `#/link/<token>` are for a browser not signed in.
 */
async function route(): Promise<void> {
  const [path = '', query = ''] = location.hash.replace(/^#/, '').split('?')
  const params = new URLSearchParams(query)
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
  clear(root)
  if (parts[0] === 'login') {
    renderLogin(root)
    return
  }
  if (parts[0] === 'link' && parts[1] !== undefined) {
    await renderLink(root, parts[1])
    return
  }
  const main = h('main')
  // Asked on every page: a role changed by an owner shows at the next click.
  const me = api<Me>('GET', '/me')
  root.append(header(me), main)
  try {
    if (parts[0] === 'people') await renderPeople(main)
    else if (parts[0] === 'audit') await renderAudit(main, params)
    else if (parts[0] === 'sign-ins') await renderSignIns(main)
    else if (parts[0] !== 'p' || parts[1] === undefined) await renderProjects(main, me.then((m) => m.role === 'owner'))
    else await renderProject(main, parts[1], parts.slice(2), params)
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_signed_in') return
    main.append(h('p', { class: 'error', role: 'alert' }, error instanceof Error ? error.message : String(error)))
  }
}

async function renderProject(main: HTMLElement, id: string, rest: string[], params: URLSearchParams): Promise<void> {
  const { projects, defaults } = await api<{ projects: ProjectSummary[]; defaults: ServerDefaults }>('GET', '/projects')
  const project = projects.find((p) => p.id === id)
  if (!project) {
    main.append(h('p', { class: 'error' }, 'No such project, or you have no role on it. '), h('a', { href: '#/' }, 'All projects'))
    return
  }
  if (rest[0] === 's' && rest[1] !== undefined) {
    await renderSession(main, project, rest[1], params)
    return
  }
  if (rest[0] === 'issues' && rest[1] !== undefined) {
    await renderIssue(main, project, rest[1])
    return
  }
  const admin = atLeast(project.role, 'admin')
  // A tab the role cannot use is not offered; typed in by hand, it shows the sessions.
  const tab = rest[0] === 'settings' && !admin ? 'sessions' : rest[0] ?? 'sessions'
  main.append(projectHeader(project, tab))
  const body = h('section', { class: 'tab' })
  main.append(body)
  if (tab === 'api') renderApiTab(body, project)
  else if (tab === 'settings') renderSettings(body, project, defaults)
  else if (tab === 'issues') await renderIssues(body, project, params)
  else if (tab === 'releases') await renderReleases(body, project, params)
  else if (tab === 'pages') await renderPages(body, project, params)
  else await renderSessions(body, project, params, defaults.demo)
}

/** The top bar: who is signed in, the pages their role opens, their sign-ins and signing out. */
function header(me: Promise<Me>): HTMLElement {
  const signOut = h('button', { type: 'button', class: 'link', id: 'sign-out' }, 'Sign out')
  signOut.addEventListener('click', () => {
    void api('DELETE', '/session').finally(() => { location.hash = '#/login' })
  })
  const docs = h('a', { href: '/api/v1/docs', target: '_blank', rel: 'noopener' }, 'API docs')
  const account = h('span', { class: 'account', id: 'me-email' })
  const nav = h('nav', { 'aria-label': 'Main' }, h('a', { href: '#/' }, 'Projects'), docs, account,
    h('a', { href: '#/sign-ins', id: 'nav-sign-ins' }, 'Your sign-ins'), signOut)
  me.then((person) => {
    docs.before(person.role === 'owner' ? h('a', { href: '#/people', id: 'nav-people' }, 'People') : '',
      readsAudit(person) ? h('a', { href: '#/audit', id: 'nav-audit' }, 'Audit') : '')
    account.textContent = person.email
  }, () => undefined)
  return h('header', { class: 'top' },
    h('a', { href: '#/', class: 'brand' }, h('img', { src: '/favicon.svg', alt: '', width: 22, height: 22 }), h('span', { class: 'brand-name' }, 'Sessionwatch')),
    nav)
}

function projectHeader(project: ProjectSummary, active: string): HTMLElement {
  const tab = (id: string, label: string) =>
    h('a', { href: `#/p/${encodeURIComponent(project.id)}/${id}`, class: id === active ? 'active' : null, id: `tab-${id}`, 'aria-current': id === active ? 'page' : null }, label)
  return h('div', { class: 'project-head' },
    h('h1', {}, project.name, ' ', h('small', {}, project.domain)),
    h('nav', { class: 'tabs', 'aria-label': 'Project' }, tab('sessions', 'Sessions'), tab('issues', 'Issues'), tab('pages', 'Pages'), tab('releases', 'Releases'),
      tab('api', 'API'),
      atLeast(project.role, 'admin') ? tab('settings', 'Settings') : null))
}

// A public replay link (/r/<token>) shows that replay alone: no sign-in, no dashboard around it.
const publicToken = /^\/r\/([\w-]{43})$/.exec(location.pathname)?.[1]
if (publicToken !== undefined) {
  void renderPublicReplay(root, publicToken)
} else {
  setSignedOutHandler(() => {
    if (!location.hash.startsWith('#/login')) location.hash = `#/login?next=${encodeURIComponent(location.hash)}`
  })
  addEventListener('hashchange', () => { void route() })
  void route()
}
