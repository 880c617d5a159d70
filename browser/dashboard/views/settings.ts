import { MAX_PROJECT_NAME_LENGTH, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../../../common/limits.ts'
import { api, ApiError, type ProjectSummary } from '../api.ts'
import { h } from '../dom.ts'
import { renderWebhooks } from './webhooks.ts'

/** Name, domain and retention of a project, and its webhooks. */
export function renderSettings(body: HTMLElement, project: ProjectSummary): void {
  const name = h('input', { id: 'set-name', required: true, maxlength: MAX_PROJECT_NAME_LENGTH, value: project.name })
  const domain = h('input', { id: 'set-domain', required: true, value: project.domain })
  const retention = h('input', {
    id: 'set-retention', type: 'number', min: MIN_RETENTION_DAYS, max: MAX_RETENTION_DAYS, value: project.retentionDays,
  })
  const message = h('p', { role: 'status', id: 'settings-message' })
  const form = h('form', { class: 'card', id: 'settings' },
    h('label', {}, 'Name', name), h('label', {}, 'Domain', domain),
    h('label', {}, 'Retention (days)', retention),
    h('p', { class: 'hint' }, 'Sessions inactive for longer than the retention disappear at once and are deleted by the next sweep.'),
    h('button', { type: 'submit', class: 'primary' }, 'Save'), message)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    message.textContent = ''
    api<ProjectSummary>('PATCH', `/projects/${encodeURIComponent(project.id)}`,
      { name: name.value, domain: domain.value, retentionDays: Number(retention.value) })
      .then((saved) => {
        message.className = 'ok'
        message.textContent = `Saved: ${saved.name}, ${saved.domain}, ${saved.retentionDays} days.`
      }, (error: unknown) => {
        message.className = 'error'
        message.textContent = error instanceof ApiError ? error.message : String(error)
      })
  })
  body.append(form)
  renderWebhooks(body, project)
}
