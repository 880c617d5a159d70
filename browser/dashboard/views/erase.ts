import { api, ApiError, type EraseResult, type ProjectSummary } from '../api.ts'
import { h } from '../dom.ts'

type Selector = 'userId' | 'sessionId' | 'ip'
const SELECTORS: Record<Selector, string> = { userId: 'User id', sessionId: 'Session id', ip: 'IP address' }

/** Erases the project's visits one selector names (POST …/erase), after the person confirmed it; null when they did not. */
function erase(project: ProjectSummary, selector: Selector, value: string, question: string): Promise<EraseResult> | null {
  if (!confirm(`${question} Their events and screen recordings go with them; this cannot be undone.`)) return null
  return api<EraseResult>('POST', `/projects/${encodeURIComponent(project.id)}/erase`, { [selector]: value })
}

/** Settings: erase a visitor's data (a data subject's request) by user id, session id or IP address. */
export function eraseCard(project: ProjectSummary): HTMLElement {
  const kind = h('select', { id: 'erase-kind' }, ...Object.entries(SELECTORS).map(([value, label]) => h('option', { value }, label)))
  const value = h('input', { id: 'erase-value', required: true, maxlength: 256 })
  const message = h('p', { role: 'status', id: 'erase-message' })
  const form = h('form', { class: 'card', id: 'erase' },
    h('h2', {}, 'Erase a visitor\'s data'),
    h('p', { class: 'hint' }, 'Deletes every visit of a user (as identify() named them), one visit, or every visit from an IP address, '
      + 'with their events and recordings. An address matches as the project stored it: with truncated IP storage, the network '
      + '(203.0.113.0), which other visitors may share.'),
    h('label', {}, 'Erase by', kind), h('label', {}, 'Value', value),
    h('button', { type: 'submit', class: 'danger' }, 'Erase…'), message)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const selector = kind.value as Selector
    const typed = value.value.trim()
    const asked = erase(project, selector, typed, `Erase every visit of ${SELECTORS[selector].toLowerCase()} "${typed}"?`)
    if (!asked) return
    message.className = ''
    message.textContent = 'Erasing…'
    asked.then((result) => {
      message.className = 'ok'
      message.textContent = `Erased ${result.erased} visits.${result.note === null ? '' : ` ${result.note}`}`
    }, (error: unknown) => {
      message.className = 'error'
      message.textContent = error instanceof ApiError ? error.message : String(error)
    })
  })
  return form
}

/** The session page's "Delete this visit": back to the sessions list once it is gone. */
export function deleteVisitButton(project: ProjectSummary, sessionId: string): HTMLElement {
  const message = h('span', { class: 'error', role: 'alert' })
  const button = h('button', { type: 'button', class: 'danger', id: 'delete-visit' }, 'Delete this visit')
  button.addEventListener('click', () => {
    erase(project, 'sessionId', sessionId, `Delete the visit ${sessionId}?`)?.then(() => {
      location.hash = `#/p/${encodeURIComponent(project.id)}/sessions`
    }, (error: unknown) => { message.textContent = error instanceof ApiError ? error.message : String(error) })
  })
  return h('p', { class: 'actions' }, button, ' ', message)
}
