import { api, ApiError, type ProjectSummary, type ProjectWithKeys } from '../api.ts'
import { codeBlock, copyButton, h } from '../dom.ts'
import { freshKeys } from '../keys.ts'

/** The API key (shown once, rotatable), curl examples with it, and the SDK snippet with the ingest key. */
export function renderApiTab(body: HTMLElement, project: ProjectSummary): void {
  const origin = location.origin
  const keyBox = h('div', { class: 'key', id: 'api-key-box' })
  const examples = h('div', { id: 'curl-examples' })
  const message = h('p', { class: 'error', role: 'alert' })

  const show = () => {
    const key = freshKeys.get(project.id)
    keyBox.replaceChildren()
    if (key) {
      keyBox.append(
        h('code', { id: 'api-key' }, key), copyButton(() => key, 'Copy key'),
        h('p', { class: 'warn' }, 'Copy it now: the key is stored hashed and will not be shown again.'))
    } else {
      keyBox.append(h('code', { id: 'api-key-prefix' }, `${project.apiKeyPrefix}…`),
        h('p', { class: 'hint' }, 'Only the start of the key is kept. Lost it? Rotate to get a new one (the old one stops working at once).'))
    }
    const shown = key ?? '<API_KEY>'
    examples.replaceChildren(
      h('h3', {}, 'List sessions, newest activity first'),
      codeBlock(`curl -H "Authorization: Bearer ${shown}" "${origin}/api/v1/sessions?limit=20"`, 'curl-list'),
      h('h3', {}, 'One session with all its events'),
      codeBlock(`curl -H "Authorization: Bearer ${shown}" "${origin}/api/v1/sessions/<SESSION_ID>"`),
      h('h3', {}, 'Its screen recording (chunks of rrweb events)'),
      codeBlock(`curl --compressed -H "Authorization: Bearer ${shown}" "${origin}/api/v1/sessions/<SESSION_ID>/recording"`))
  }

  const rotate = h('button', { type: 'button', id: 'rotate-key', class: 'danger' }, 'Rotate API key')
  rotate.addEventListener('click', () => {
    if (!freshKeys.has(project.id) && !confirm('Rotate the API key? Scripts using the current key stop working at once.')) return
    message.textContent = ''
    api<ProjectWithKeys>('POST', `/projects/${encodeURIComponent(project.id)}/api-key`).then((keys) => {
      freshKeys.set(project.id, keys.apiKey)
      show()
    }, (error: unknown) => { message.textContent = error instanceof ApiError ? error.message : String(error) })
  })

  const snippet = `<script src="${origin}/sdk.js"></script>\n<script>\n  Sessionwatch.init({ ingestKey: '${project.ingestKey}', endpoint: '${origin}' })\n</script>`
  const sentrySnippet = `Sentry.init({\n  dsn: '${project.dsn}',\n  integrations: [Sentry.replayIntegration()],\n  replaysSessionSampleRate: 0.1,\n  replaysOnErrorSampleRate: 1.0,\n})`
  show()
  body.append(
    h('section', { class: 'card' }, h('h2', {}, 'API key'),
      h('p', {}, 'Read the sessions of this project from scripts and bots. Send it as "Authorization: Bearer <key>" or "X-Api-Key: <key>".'),
      keyBox, rotate, message, examples),
    h('section', { class: 'card' }, h('h2', {}, 'Record your site'),
      h('p', {}, 'Paste before </body> on every page. The ingest key is public and can only write.'),
      codeBlock(snippet, 'sdk-snippet'),
      h('p', { class: 'hint' }, 'Inputs are masked and passwords never recorded. Add class "sw-block" to hide an element from the replay, "sw-mask" to mask its text.')),
    h('section', { class: 'card' }, h('h2', {}, 'Already using Sentry?'),
      h('p', {}, 'Point an unmodified Sentry browser SDK at this project: errors, replays and user feedback arrive here. The DSN is public and can only write; rotating the ingest key (CLI) replaces it.'),
      h('div', { class: 'key' }, h('code', { id: 'sentry-dsn' }, project.dsn), copyButton(() => project.dsn, 'Copy DSN')),
      codeBlock(sentrySnippet, 'sentry-snippet')))
}
