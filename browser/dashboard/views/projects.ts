import {
  DEFAULT_RETENTION_DAYS, MAX_PROJECT_NAME_LENGTH, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS,
} from '../../../common/limits.ts'
import { api, ApiError, type ProjectSummary, type ProjectWithKeys } from '../api.ts'
import { h, stackedTable, timeTag } from '../dom.ts'
import { freshKeys, freshUploadKeys } from '../keys.ts'

/** The projects the person has a role on; an owner also gets the form for a new one. */
export async function renderProjects(main: HTMLElement, isOwner: Promise<boolean>): Promise<void> {
  const [{ projects }, owner] = await Promise.all([api<{ projects: ProjectSummary[] }>('GET', '/projects'), isOwner])
  main.append(h('h1', {}, 'Projects'))
  if (projects.length === 0) {
    main.append(h('p', { id: 'no-projects' }, owner ? 'No projects yet: create the first one below.' : 'You have no role on any project yet: ask an owner for one.'))
  } else {
    main.append(stackedTable('projects', ['Name', 'Domain', 'Your role', 'Retention', 'Created', 'Keys'], projects.map((p) => h('tr', {},
      h('td', {}, h('a', { href: `#/p/${encodeURIComponent(p.id)}/sessions` }, p.name)),
      h('td', {}, p.domain),
      h('td', { class: 'role' }, p.role),
      h('td', {}, `${p.retentionDays} days`),
      h('td', {}, timeTag(p.createdAt)),
      h('td', {}, h('a', { href: `#/p/${encodeURIComponent(p.id)}/api`, 'aria-label': `API key of ${p.name}` }, 'API key'))))))
  }
  if (owner) main.append(projectForm())
}

/** Create a project; its API key is shown once, on its API tab. */
function projectForm(): HTMLElement {
  const name = h('input', { id: 'new-name', name: 'name', required: true, maxlength: MAX_PROJECT_NAME_LENGTH, placeholder: 'My shop' })
  const domain = h('input', { id: 'new-domain', name: 'domain', required: true, placeholder: 'shop.example.com' })
  const retention = h('input', {
    id: 'new-retention', name: 'retentionDays', type: 'number', min: MIN_RETENTION_DAYS, max: MAX_RETENTION_DAYS, value: DEFAULT_RETENTION_DAYS,
  })
  const message = h('p', { class: 'error', role: 'alert' })
  const form = h('form', { class: 'card', id: 'create-project' },
    h('h2', {}, 'New project'),
    h('label', {}, 'Name', name), h('label', {}, 'Domain', domain), h('label', {}, 'Retention (days)', retention),
    h('button', { type: 'submit', class: 'primary' }, 'Create project'), message)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    message.textContent = ''
    api<ProjectWithKeys>('POST', '/projects', { name: name.value, domain: domain.value, retentionDays: Number(retention.value) })
      .then((created) => {
        freshKeys.set(created.id, created.apiKey)
        freshUploadKeys.set(created.id, created.uploadKey)
        location.hash = `#/p/${encodeURIComponent(created.id)}/api`
      }, (error: unknown) => { message.textContent = error instanceof ApiError ? error.message : String(error) })
  })
  return form
}
