import {
  IP_STORAGE_MODES, MAX_MASK_FIELD_LENGTH, MAX_MASK_FIELDS, MAX_PROJECT_NAME_LENGTH, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS,
} from '../../../common/limits.ts'
import { api, ApiError, type IpStorage, type ProjectSummary, type ServerDefaults } from '../api.ts'
import { h } from '../dom.ts'
import { eraseCard } from './erase.ts'
import { renderWebhooks } from './webhooks.ts'

const IP_STORAGE_LABELS: Record<IpStorage, string> = {
  full: 'Full address',
  truncated: 'Truncated: IPv4 to /24, IPv6 to /48',
  none: 'None',
}

/** Name, domain, retention and privacy of a project, its webhooks, and erasing a visitor's data. */
export function renderSettings(body: HTMLElement, project: ProjectSummary, defaults: ServerDefaults): void {
  const name = h('input', { id: 'set-name', required: true, maxlength: MAX_PROJECT_NAME_LENGTH, value: project.name })
  const domain = h('input', { id: 'set-domain', required: true, value: project.domain })
  const retention = h('input', {
    id: 'set-retention', type: 'number', min: MIN_RETENTION_DAYS, max: MAX_RETENTION_DAYS, value: project.retentionDays,
  })
  // The empty value is "follow the server": the project stores null and moves with IP_STORAGE.
  const ipStorage = h('select', { id: 'set-ip-storage' },
    h('option', { value: '' }, `Server default (${IP_STORAGE_LABELS[defaults.ipStorage]})`),
    ...IP_STORAGE_MODES.map((mode) => h('option', { value: mode }, IP_STORAGE_LABELS[mode])))
  ipStorage.value = project.ipStorage ?? ''
  const maskFields = h('input', { id: 'set-mask-fields', value: project.maskFields.join(', '), placeholder: 'iban, birthDate, phone' })
  const message = h('p', { role: 'status', id: 'settings-message' })
  const form = h('form', { class: 'card', id: 'settings' },
    h('label', {}, 'Name', name), h('label', {}, 'Domain', domain),
    h('label', {}, 'Retention (days)', retention),
    h('p', { class: 'hint' }, 'Sessions inactive for longer than the retention disappear at once and are deleted by the next sweep.'),
    h('label', {}, 'IP address storage', ipStorage),
    h('p', { class: 'hint' }, 'The country is found from the full address first. Applies to visits from now on: stored addresses stay as they are.'),
    h('label', {}, 'Masked fields', maskFields),
    h('p', { class: 'hint' }, `Up to ${MAX_MASK_FIELDS} field names (each up to ${MAX_MASK_FIELD_LENGTH} characters), comma-separated, whose values `
      + 'are replaced by *** in request and response bodies, besides passwords, tokens and card numbers. Applies to events from now on.'),
    h('button', { type: 'submit', class: 'primary' }, 'Save'), message)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    message.textContent = ''
    api<ProjectSummary>('PATCH', `/projects/${encodeURIComponent(project.id)}`, {
      name: name.value, domain: domain.value, retentionDays: Number(retention.value),
      ipStorage: ipStorage.value === '' ? null : ipStorage.value,
      maskFields: maskFields.value.split(',').map((f) => f.trim()).filter((f) => f !== ''),
    }).then((saved) => {
      message.className = 'ok'
      message.textContent = `Saved: ${saved.name}, ${saved.domain}, ${saved.retentionDays} days.`
      maskFields.value = saved.maskFields.join(', ')
    }, (error: unknown) => {
      message.className = 'error'
      message.textContent = error instanceof ApiError ? error.message : String(error)
    })
  })
  body.append(form)
  renderWebhooks(body, project)
  body.append(eraseCard(project))
}
