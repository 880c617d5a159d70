import {
  INGEST_BURST_SECONDS, IP_STORAGE_MODES, MAX_DAILY_EVENT_QUOTA, MAX_INGEST_RATE_LIMIT, MAX_MASK_FIELD_LENGTH, MAX_MASK_FIELDS, MAX_PROJECT_NAME_LENGTH,
  MAX_RETENTION_DAYS, MIN_RETENTION_DAYS,
} from '../../../common/limits.ts'
import { api, ApiError, type IpStorage, type ProjectSummary, type ProjectUsage, type ServerDefaults } from '../api.ts'
import { h } from '../dom.ts'
import { eraseCard } from './erase.ts'
import { publicLinksCard } from './public-links.ts'
import { renderWebhooks } from './webhooks.ts'

const IP_STORAGE_LABELS: Record<IpStorage, string> = {
  full: 'Full address',
  truncated: 'Truncated: IPv4 to /24, IPv6 to /48',
  none: 'None',
}

/** Name, domain, retention, privacy and ingest limits of a project, its webhooks, and erasing a visitor's data. */
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
  // Empty: the server's INGEST_RATE_LIMIT (rate) and no quota (quota), stored as null.
  const rate = h('input', {
    id: 'set-rate-limit', type: 'number', min: 0, max: MAX_INGEST_RATE_LIMIT, value: project.ingestRateLimit ?? '',
    placeholder: `Server default (${defaults.ingestRateLimit === 0 ? 'no limit' : `${defaults.ingestRateLimit}/s`})`,
  })
  const quota = h('input', { id: 'set-daily-quota', type: 'number', min: 1, max: MAX_DAILY_EVENT_QUOTA, value: project.dailyEventQuota ?? '', placeholder: 'No quota' })
  // In MB (10^6 bytes), as `project update --recording-budget 500MB` writes it; empty: no budget.
  const budget = h('input', {
    id: 'set-recording-budget', type: 'number', min: 1, step: 'any', placeholder: 'No budget',
    value: project.recordingBudget === null ? '' : project.recordingBudget / 1e6,
  })
  const usage = h('p', { class: 'hint', id: 'set-usage' })
  const recordings = h('p', { class: 'hint', id: 'set-recording-usage' })
  const showUsage = (): void => {
    api<ProjectUsage>('GET', `/projects/${encodeURIComponent(project.id)}/usage`).then((u) => {
      usage.textContent = u.dailyEventQuota === null
        ? 'No quota: events are not counted.'
        : `Today (${u.day}, UTC): ${u.events.toLocaleString('en')} of ${u.dailyEventQuota.toLocaleString('en')} events.`
      recordings.textContent = `Recordings: ${megabytes(u.recordingBytes)}${u.recordingBudget === null ? '' : ` of ${megabytes(u.recordingBudget)}`}. `
        + (u.evictedVisits === 0 ? 'None evicted.'
          : `Evicted, oldest first: the recordings of ${u.evictedVisits.toLocaleString('en')} visits (${megabytes(u.evictedBytes)}); the visits and their events stay.`)
    }, () => { usage.textContent = ''; recordings.textContent = '' })
  }
  showUsage()
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
    h('label', {}, 'Ingest rate limit (requests per second)', rate),
    h('p', { class: 'hint' }, `Per service process, with bursts of ${INGEST_BURST_SECONDS}× the rate; beyond it the SDKs are told to wait (429). `
      + 'Empty: the server\'s INGEST_RATE_LIMIT; 0: no limit.'),
    h('label', {}, 'Daily event quota', quota),
    h('p', { class: 'hint' }, 'Events accepted per UTC day, all service processes together; once spent, ingest waits until the next UTC midnight. '
      + 'Empty: no quota.'),
    usage,
    h('label', {}, 'Recording budget (MB)', budget),
    h('p', { class: 'hint' }, 'Compressed recording bytes the project keeps; beyond it the oldest recordings are deleted within a minute. '
      + 'Visits, events and issues are never deleted for it, and new recordings keep arriving. Empty: no budget.'),
    recordings,
    h('button', { type: 'submit', class: 'primary' }, 'Save'), message)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    message.textContent = ''
    api<ProjectSummary>('PATCH', `/projects/${encodeURIComponent(project.id)}`, {
      name: name.value, domain: domain.value, retentionDays: Number(retention.value),
      ipStorage: ipStorage.value === '' ? null : ipStorage.value,
      maskFields: maskFields.value.split(',').map((f) => f.trim()).filter((f) => f !== ''),
      ingestRateLimit: rate.value === '' ? null : Number(rate.value), dailyEventQuota: quota.value === '' ? null : Number(quota.value),
      recordingBudget: budget.value === '' ? null : Math.round(Number(budget.value) * 1e6),
    }).then((saved) => {
      message.className = 'ok'
      message.textContent = `Saved: ${saved.name}, ${saved.domain}, ${saved.retentionDays} days.`
      maskFields.value = saved.maskFields.join(', ')
      showUsage()
    }, (error: unknown) => {
      message.className = 'error'
      message.textContent = error instanceof ApiError ? error.message : String(error)
    })
  })
  body.append(form)
  renderWebhooks(body, project)
  body.append(publicLinksCard(project))
  body.append(eraseCard(project))
}

/** Bytes in MB (10^6), as the budget field takes them. */
const megabytes = (bytes: number): string => `${(bytes / 1e6).toLocaleString('en', { maximumFractionDigits: 1 })} MB`
