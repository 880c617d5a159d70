import { MAX_WEBHOOK_URL_LENGTH, WEBHOOK_LOG_SIZE } from '../../../common/limits.ts'
import { api, ApiError, type AddedWebhook, type DeliveryItem, type ProjectSummary, type WebhookItem } from '../api.ts'
import { formatTime, h, stackedTable } from '../dom.ts'

const KINDS: Record<DeliveryItem['kind'], string> = { new: 'New issue', regression: 'Regression' }

/** The project's webhooks (list, add, remove) and the log of their latest deliveries. */
export function renderWebhooks(body: HTMLElement, project: ProjectSummary): void {
  const base = `/projects/${encodeURIComponent(project.id)}/webhooks`
  const list = h('ul', { class: 'webhooks', id: 'webhooks' })
  const log = h('div', { id: 'webhook-log' })
  const message = h('p', { role: 'status', id: 'webhook-message' })
  // The new webhook's signing secret: the add answer is the only time the service shows it.
  const secret = h('div', { id: 'webhook-secret', hidden: true })
  const say = (className: string, text: string) => {
    message.className = className
    message.textContent = text
  }
  const fail = (error: unknown) => { say('error', error instanceof ApiError ? error.message : String(error)) }

  const load = async () => {
    const [{ webhooks }, { deliveries }] = await Promise.all([
      api<{ webhooks: WebhookItem[] }>('GET', base), api<{ deliveries: DeliveryItem[] }>('GET', `${base}/deliveries`),
    ])
    list.replaceChildren(...(webhooks.length === 0 ? [h('li', { class: 'empty', id: 'no-webhooks' }, 'No webhooks yet.')] : webhooks.map(item)))
    log.replaceChildren(deliveries.length === 0
      ? h('p', { class: 'empty', id: 'no-deliveries' }, 'No deliveries yet: one is queued for every webhook when an issue is new or comes back.')
      : deliveryTable(project, deliveries))
  }

  const item = (webhook: WebhookItem) => {
    const remove = h('button', { type: 'button', class: 'danger remove-webhook' }, 'Remove')
    remove.addEventListener('click', () => {
      if (!confirm(`Remove the webhook ${webhook.url}? Its pending deliveries are not sent.`)) return
      api('DELETE', `${base}/${encodeURIComponent(webhook.id)}`).then(() => {
        say('ok', `Removed ${webhook.url}`)
        return load()
      }).catch(fail)
    })
    return h('li', { 'data-id': webhook.id }, h('code', {}, webhook.url), h('span', { class: 'hint' }, `added ${formatTime(webhook.createdAt)}`), remove)
  }

  const url = h('input', {
    id: 'webhook-url', type: 'url', required: true, maxlength: MAX_WEBHOOK_URL_LENGTH, placeholder: 'https://hooks.slack.com/services/…',
  })
  const form = h('form', { id: 'add-webhook' }, h('label', {}, 'Webhook URL', url), h('button', { type: 'submit', class: 'primary' }, 'Add webhook'))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    say('', '')
    secret.hidden = true
    api<AddedWebhook>('POST', base, { url: url.value }).then((added) => {
      url.value = ''
      say('ok', `Added ${added.url}`)
      secret.replaceChildren(
        h('p', {}, 'Signing secret: copy it now, it is not shown again. Every delivery carries a webhook-signature header '
          + 'signed with it (Standard Webhooks); see the API reference for how to verify it.'),
        h('code', { class: 'secret' }, added.secret))
      secret.hidden = false
      return load()
    }).catch(fail)
  })
  const refresh = h('button', { type: 'button', id: 'refresh-deliveries' }, 'Refresh')
  refresh.addEventListener('click', () => { load().catch(fail) })

  body.append(h('section', { class: 'card', id: 'webhooks-card' },
    h('h2', {}, 'Webhooks'),
    h('p', { class: 'hint' }, 'A new issue or a regression is posted as JSON to every webhook. Slack, Mattermost and Discord '
      + 'incoming-webhook URLs work as they are; failed deliveries are retried for 24 hours.'),
    list, form, message, secret,
    h('h3', {}, `Delivery log (latest ${WEBHOOK_LOG_SIZE})`), refresh, log))
  load().catch(fail)
}

function deliveryTable(project: ProjectSummary, deliveries: DeliveryItem[]): HTMLElement {
  return stackedTable('deliveries', ['Queued', 'Kind', 'Issue', 'Status', 'Attempts', 'Last answer'], deliveries.map((d) => {
      const answer = [d.lastStatus === null ? '' : `HTTP ${d.lastStatus}`, d.lastError ?? ''].filter(Boolean).join(': ')
      const status = d.status === 'pending' && d.nextAttemptAt !== null ? `pending, next try ${formatTime(d.nextAttemptAt)}` : d.status
      return h('tr', { 'data-status': d.status },
        h('td', {}, formatTime(d.createdAt)),
        h('td', {}, KINDS[d.kind]),
        h('td', { class: 'clip', title: d.issue.title },
          h('a', { href: `#/p/${encodeURIComponent(project.id)}/issues/${encodeURIComponent(d.issue.id)}`, class: 'issue-link' }, d.issue.title)),
        h('td', { class: `status-${d.status}` }, status),
        h('td', { class: 'num' }, d.attempts),
        h('td', { class: 'clip', title: answer }, answer || '—'))
  }))
}
