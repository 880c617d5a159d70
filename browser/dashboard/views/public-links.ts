import { atLeast } from '../../../common/roles.ts'
import { api, ApiError, type ProjectSummary, type RecordingInfo } from '../api.ts'
import { clear, copyButton, formatTime, h } from '../dom.ts'
import { mountReplay } from './replay.ts'

interface LinkItem {
  id: string; sessionId: string; createdBy: { id: string; email: string } | null
  createdAt: string; expiresAt: string; revokedAt: string | null; active: boolean
}

const failure = (error: unknown) => h('p', { class: 'error', role: 'alert' }, error instanceof ApiError || error instanceof Error ? error.message : String(error))

/** On a visit's page, when its project shares replays: makes a public link to this replay, shown to copy. */
export function publicLinkButton(project: ProjectSummary, visitId: string): HTMLElement {
  const box = h('div', { class: 'public-link', id: 'public-link' })
  const days = h('select', { id: 'public-link-days', 'aria-label': 'Expires after' },
    ...[1, 7, 30].map((d) => h('option', { value: d, selected: d === 7 }, `${d} day${d === 1 ? '' : 's'}`)))
  const make = h('button', { type: 'button', id: 'make-public-link' }, 'Make a public link')
  make.addEventListener('click', () => {
    box.querySelector('.error')?.remove()
    api<{ url: string; expiresAt: string }>('POST', `/projects/${encodeURIComponent(project.id)}/sessions/${encodeURIComponent(visitId)}/public-link`, { days: Number(days.value) })
      .then(({ url, expiresAt }) => {
        clear(box)
        box.append(h('input', { id: 'public-link-url', readonly: true, value: url, 'aria-label': 'Public link' }), copyButton(() => url),
          h('p', { class: 'hint' }, `Anyone with this link can watch this replay, and nothing else of the project, until ${formatTime(expiresAt)}. Revoke it in Settings.`))
      }, (error: unknown) => { box.append(failure(error)) })
  })
  box.append(h('span', {}, 'Share this replay: '), days, make)
  return box
}

/** In Settings: whether members may make public links, and the links, each revocable. */
export function publicLinksCard(project: ProjectSummary): HTMLElement {
  const base = `/projects/${encodeURIComponent(project.id)}`
  const toggle = h('input', { type: 'checkbox', id: 'set-public-replays', checked: project.publicReplays })
  const list = h('ul', { class: 'public-links', id: 'public-links' })
  const card = h('section', { class: 'card', id: 'public-replays' }, h('h2', {}, 'Public replay links'),
    h('label', { class: 'check' }, toggle, ' Members may share one visit\'s replay by a public link'),
    h('p', { class: 'hint' }, 'A link shows that replay and nothing else of the project, expires (7 days unless told), and each opening is in the audit trail. '
      + 'Turning this off stops every link at once.'), list)
  toggle.addEventListener('change', () => {
    card.querySelector('.error')?.remove()
    api<ProjectSummary>('PATCH', base, { publicReplays: toggle.checked }).then((saved) => {
      project.publicReplays = saved.publicReplays
      void load()
    }, (error: unknown) => { card.append(failure(error)) })
  })
  const load = async () => {
    const { links } = await api<{ links: LinkItem[] }>('GET', `${base}/public-links`)
    clear(list)
    if (links.length === 0) list.append(h('li', { class: 'empty' }, 'No links yet.'))
    for (const link of links) {
      const state = link.revokedAt !== null ? 'revoked' : link.active ? `until ${formatTime(link.expiresAt)}` : Date.parse(link.expiresAt) <= Date.now() ? 'expired' : 'off'
      const revoke = link.revokedAt === null && Date.parse(link.expiresAt) > Date.now()
        ? h('button', { type: 'button', class: 'link revoke-link', onclick: () => {
          void api('DELETE', `${base}/public-links/${encodeURIComponent(link.id)}`).then(load, (error: unknown) => { card.append(failure(error)) })
        } }, 'Revoke')
        : null
      list.append(h('li', { 'data-id': link.id },
        h('a', { href: `#/p/${encodeURIComponent(project.id)}/s/${encodeURIComponent(link.sessionId)}` }, `Visit ${link.sessionId}`),
        ` by ${link.createdBy?.email ?? 'a removed person'}, ${state} `, revoke))
    }
  }
  if (atLeast(project.role, 'member')) void load().catch((error: unknown) => { card.append(failure(error)) })
  return card
}

/** The page a public link opens (/r/<token>): the replay alone, loaded with the token, without the dashboard around it. */
export async function renderPublicReplay(root: HTMLElement, token: string): Promise<void> {
  const base = `/public-replays/${encodeURIComponent(token)}`
  const main = h('main', { class: 'public-replay' }, h('h1', {}, 'Session replay'))
  root.append(main)
  try {
    const info = await api<Pick<RecordingInfo, 'recording' | 'chunks'>>('GET', `${base}/recording`)
    const box = h('div', { class: 'player', id: 'public-player' })
    main.append(box)
    if (!(await mountReplay(box, base, info))) main.append(h('p', { class: 'empty' }, 'This visit has no replay to show.'))
  } catch (error) {
    main.append(failure(error))
  }
}
