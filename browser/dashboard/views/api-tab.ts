import { atLeast } from '../../../common/roles.ts'
import { api, ApiError, type ProjectSummary, type ProjectWithKeys, type ProjectWithUploadKey } from '../api.ts'
import { codeBlock, copyButton, h } from '../dom.ts'
import { freshKeys, freshUploadKeys } from '../keys.ts'

/**
 * The API key (shown once, rotatable), curl examples with it, the upload key for source maps (likewise), and the
 * SDK snippet with the ingest key.
 */
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

  const uploadCard = renderUploadKey(project, origin)
  const snippet = `<script src="${origin}/sdk.js"></script>\n<script>\n  Sessionwatch.init({ ingestKey: '${project.ingestKey}', endpoint: '${origin}' })\n</script>`
  const sentrySnippet = `Sentry.init({\n  dsn: '${project.dsn}',\n  integrations: [Sentry.replayIntegration()],\n  replaysSessionSampleRate: 0.1,\n  replaysOnErrorSampleRate: 1.0,\n})`
  show()
  body.append(
    h('section', { class: 'card' }, h('h2', {}, 'API key'),
      h('p', {}, 'Read the sessions of this project from scripts and bots. Send it as "Authorization: Bearer <key>" or "X-Api-Key: <key>".'),
      keyBox, atLeast(project.role, 'admin') ? rotate : null, message, examples),
    uploadCard,
    h('section', { class: 'card' }, h('h2', {}, 'Record your site'),
      h('p', {}, 'Paste before </body> on every page. The ingest key is public and can only write.'),
      codeBlock(snippet, 'sdk-snippet'),
      h('p', { class: 'hint' }, 'Inputs are masked and passwords never recorded. Add class "sw-block" to hide an element from the replay, "sw-mask" to mask its text.')),
    h('section', { class: 'card' }, h('h2', {}, 'Already using Sentry?'),
      h('p', {}, 'Point an unmodified Sentry browser SDK at this project: errors, replays and user feedback arrive here. The DSN is public and can only write; rotating the ingest key (CLI) replaces it.'),
      h('div', { class: 'key' }, h('code', { id: 'sentry-dsn' }, project.dsn), copyButton(() => project.dsn, 'Copy DSN')),
      codeBlock(sentrySnippet, 'sentry-snippet')))
}

/**
 * The upload key: shown in full only right after it was made, as the API key is. A project made before upload keys
 * has none until the button creates one.
 */
function renderUploadKey(project: ProjectSummary, origin: string): HTMLElement {
  const keyBox = h('div', { class: 'key', id: 'upload-key-box' })
  const examples = h('div', { id: 'upload-examples' })
  const message = h('p', { class: 'error', role: 'alert' })
  const button = h('button', { type: 'button', id: 'rotate-upload-key', class: 'danger' })
  const prefix = project.uploadKeyPrefix

  const show = () => {
    const key = freshUploadKeys.get(project.id)
    keyBox.replaceChildren()
    if (key) {
      keyBox.append(h('code', { id: 'upload-key' }, key), copyButton(() => key, 'Copy key'),
        h('p', { class: 'warn' }, 'Copy it now: the key is stored hashed and will not be shown again.'))
    } else if (prefix === null) {
      keyBox.append(h('p', { class: 'hint', id: 'no-upload-key' }, 'This project has no upload key yet (it was made before upload keys existed): create one.'))
    } else {
      keyBox.append(h('code', { id: 'upload-key-prefix' }, `${prefix}…`),
        h('p', { class: 'hint' }, 'Only the start of the key is kept. Lost it? Rotate to get a new one (the old one stops working at once).'))
    }
    button.textContent = prefix === null && key === undefined ? 'Create upload key' : 'Rotate upload key'
    const shown = key ?? '<UPLOAD_KEY>'
    examples.replaceChildren(
      h('h3', {}, 'Upload a build\'s maps from CI'),
      codeBlock(`SESSIONWATCH_ENDPOINT=${origin} SESSIONWATCH_UPLOAD_KEY=${shown} \\\n  npx sessionwatch sourcemaps upload --url-prefix https://${project.domain}/static/ dist/static`, 'upload-cli'),
      h('h3', {}, 'One map with curl'),
      codeBlock(`curl --data-binary @app.js.map -H "Authorization: Bearer ${shown}" \\\n  "${origin}/upload/v1/sourcemaps?url=https://${project.domain}/static/app.js"`))
  }

  button.addEventListener('click', () => {
    if (prefix !== null && !freshUploadKeys.has(project.id) && !confirm('Rotate the upload key? CI jobs using the current key stop working at once.')) return
    message.textContent = ''
    api<ProjectWithUploadKey>('POST', `/projects/${encodeURIComponent(project.id)}/upload-key`).then((keys) => {
      freshUploadKeys.set(project.id, keys.uploadKey)
      show()
    }, (error: unknown) => { message.textContent = error instanceof ApiError ? error.message : String(error) })
  })
  show()
  return h('section', { class: 'card' }, h('h2', {}, 'Upload key'),
    h('p', {}, 'Upload source maps from CI, so error stacks read in your own files. It writes maps and reads nothing; the API key above only reads.'),
    keyBox, atLeast(project.role, 'admin') ? button : null, message, examples)
}
