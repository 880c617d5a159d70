import { api, ApiError, setSignedOutHandler, type ProjectSummary, type ServerDefaults } from './api.ts'
import { clear, h } from './dom.ts'
import { renderApiTab } from './views/api-tab.ts'
import { renderLogin } from './views/login.ts'
import { renderProjects } from './views/projects.ts'
import { renderIssue } from './views/issue.ts'
import { renderIssues } from './views/issues.ts'
import { renderReleases } from './views/releases.ts'
import { renderSession } from './views/session.ts'
import { renderSessions } from './views/sessions.ts'
import { renderSettings } from './views/settings.ts'

const root = document.getElementById('app') ?? document.body

/** Where each hash route leads. `#/p/<project>/<tab>`, `#/p/<project>/s/<session>` and `#/p/<project>/issues/<issue>` take a project. */
async function route(): Promise<void> {
  const [path = '', query = ''] = location.hash.replace(/^#/, '').split('?')
  const params = new URLSearchParams(query)
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
  clear(root)
  if (parts[0] === 'login') {
    renderLogin(root)
    return
  }
  const main = h('main')
  root.append(header(), main)
  try {
    if (parts[0] !== 'p' || parts[1] === undefined) {
      await renderProjects(main)
      return
    }
    const { projects, defaults } = await api<{ projects: ProjectSummary[]; defaults: ServerDefaults }>('GET', '/projects')
    const project = projects.find((p) => p.id === parts[1])
    if (!project) {
      main.append(h('p', { class: 'error' }, 'No such project. '), h('a', { href: '#/' }, 'All projects'))
      return
    }
    if (parts[2] === 's' && parts[3] !== undefined) {
      await renderSession(main, project, parts[3])
      return
    }
    if (parts[2] === 'issues' && parts[3] !== undefined) {
      await renderIssue(main, project, parts[3])
      return
    }
    const tab = parts[2] ?? 'sessions'
    main.append(projectHeader(project, tab))
    const body = h('section', { class: 'tab' })
    main.append(body)
    if (tab === 'api') renderApiTab(body, project)
    else if (tab === 'settings') renderSettings(body, project, defaults)
    else if (tab === 'issues') await renderIssues(body, project, params)
    else if (tab === 'releases') await renderReleases(body, project, params)
    else await renderSessions(body, project, params, defaults.demo)
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_signed_in') return
    main.append(h('p', { class: 'error', role: 'alert' }, error instanceof Error ? error.message : String(error)))
  }
}

function header(): HTMLElement {
  const signOut = h('button', { type: 'button', class: 'link', id: 'sign-out' }, 'Sign out')
  signOut.addEventListener('click', () => {
    void api('DELETE', '/session').finally(() => { location.hash = '#/login' })
  })
  return h('header', { class: 'top' },
    h('a', { href: '#/', class: 'brand' }, h('img', { src: '/favicon.svg', alt: '', width: 22, height: 22 }), h('span', { class: 'brand-name' }, 'Sessionwatch')),
    h('nav', { 'aria-label': 'Main' }, h('a', { href: '#/' }, 'Projects'), h('a', { href: '/api/v1/docs', target: '_blank', rel: 'noopener' }, 'API docs'), signOut))
}

function projectHeader(project: ProjectSummary, active: string): HTMLElement {
  const tab = (id: string, label: string) =>
    h('a', { href: `#/p/${encodeURIComponent(project.id)}/${id}`, class: id === active ? 'active' : null, id: `tab-${id}`, 'aria-current': id === active ? 'page' : null }, label)
  return h('div', { class: 'project-head' },
    h('h1', {}, project.name, ' ', h('small', {}, project.domain)),
    h('nav', { class: 'tabs', 'aria-label': 'Project' }, tab('sessions', 'Sessions'), tab('issues', 'Issues'), tab('releases', 'Releases'), tab('api', 'API'), tab('settings', 'Settings')))
}

setSignedOutHandler(() => {
  if (!location.hash.startsWith('#/login')) location.hash = `#/login?next=${encodeURIComponent(location.hash)}`
})
addEventListener('hashchange', () => { void route() })
void route()
