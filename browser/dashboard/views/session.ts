import { api, type ProjectSummary, type RecordingInfo, type SessionEvent, type SessionItem } from '../api.ts'
import { formatDuration, formatTime, h } from '../dom.ts'
import { mountReplay, noReplay, type Replay } from './replay.ts'
import { deleteVisitButton } from './erase.ts'
import { browserName } from './sessions.ts'
import { stackBlock } from './stack.ts'

interface Detail { session: SessionItem; events: SessionEvent[] }

/** One session: facts, the event timeline, and the replay, in sync both ways. */
export async function renderSession(main: HTMLElement, project: ProjectSummary, id: string): Promise<void> {
  const base = `/projects/${encodeURIComponent(project.id)}/sessions/${encodeURIComponent(id)}`
  const [detail, recording] = await Promise.all([
    api<Detail>('GET', base),
    api<RecordingInfo>('GET', `${base}/recording`).catch(() => null),
  ])
  const s = detail.session
  const started = Date.parse(s.startedAt)
  main.append(
    h('p', {}, h('a', { href: `#/p/${encodeURIComponent(project.id)}/sessions` }, `‹ ${project.name}: sessions`)),
    h('h1', {}, `Session ${s.id}`),
    h('dl', { class: 'facts', id: 'session-facts' },
      fact('Started', formatTime(s.startedAt)), fact('Duration', formatDuration(Date.parse(s.lastSeenAt) - started)),
      fact('Country', s.country ?? '—'), fact('IP', s.ip ?? '—'), fact('Browser', browserName(s.userAgent)),
      fact('Events', `${s.events.total} (${s.events.errors} errors, ${s.events.slow} slow)`),
      fact('Tags', s.utm ? Object.entries(s.utm).map(([k, v]) => `${k}=${v}`).join(' ') : '—'),
      fact('User-Agent', s.userAgent ?? '—')),
    deleteVisitButton(project, s.id))

  const timeline = h('ol', { class: 'timeline', id: 'timeline' })
  const playerBox = h('div', { class: 'player', id: 'player' })
  main.append(h('div', { class: 'session-grid' }, h('section', {}, h('h2', {}, 'Timeline'), timeline), h('section', {}, h('h2', {}, 'Replay'), playerBox)))

  let replay: Replay | null = null
  const items = detail.events.map((e) => {
    const item = eventItem(e, started, project)
    item.addEventListener('click', (event) => {
      if ((event.target as HTMLElement).closest('details')) return
      select(item)
      replay?.seek(Date.parse(e.createdAt))
    })
    timeline.append(item)
    return { item, at: Date.parse(e.createdAt) }
  })
  if (items.length === 0) timeline.append(h('li', { class: 'empty' }, 'No events.'))

  let current: HTMLElement | null = null
  const select = (item: HTMLElement | null) => {
    if (item === current) return
    current?.classList.remove('current')
    current?.removeAttribute('aria-current')
    current = item
    current?.classList.add('current')
    current?.setAttribute('aria-current', 'true')
    current?.scrollIntoView({ block: 'nearest' })
  }

  replay = recording ? await mountReplay(playerBox, base, recording) : null
  if (!replay) {
    playerBox.append(noReplay(recording))
    return
  }
  replay.onTime((at) => {
    let last: HTMLElement | null = null
    for (const x of items) if (x.at <= at) last = x.item
    select(last)
  })
}

const fact = (term: string, value: string) => h('div', {}, h('dt', {}, term), h('dd', {}, value))

/** One event: time since the session started, type, caption; details (stack, bodies) fold out. */
function eventItem(e: SessionEvent, started: number, project: ProjectSummary): HTMLElement {
  const caption = e.message ?? (e.url ? `${e.method ?? ''} ${e.url}`.trim() : '')
  const extra: HTMLElement[] = []
  if (e.url) extra.push(h('p', {}, h('b', {}, 'URL '), e.method ? `${e.method} ` : '', e.url))
  if (e.statusCode !== null) extra.push(h('p', {}, h('b', {}, 'Status '), e.statusCode))
  if (e.durationMs !== null) extra.push(h('p', {}, h('b', {}, 'Duration '), `${Math.round(e.durationMs)} ms`))
  const stack = stackBlock(e)
  if (stack) extra.push(h('b', {}, 'Stack'), stack)
  if (e.reqBody) extra.push(h('b', {}, 'Request body'), h('pre', {}, e.reqBody))
  if (e.resBody) extra.push(h('b', {}, 'Response body'), h('pre', {}, e.resBody))
  const kind = e.type === 'ERROR' || e.type === 'HTTP_ERROR' ? 'error' : e.type === 'SLOW_REQUEST' ? 'slow' : 'info'
  return h('li', { class: `event ${kind}`, 'data-type': e.type, 'data-id': e.id, tabindex: 0 },
    h('span', { class: 'at' }, `+${formatDuration(Date.parse(e.createdAt) - started)}`),
    h('span', { class: `badge ${kind}` }, e.type),
    h('span', { class: 'caption' }, caption),
    e.issueId ? h('a', { class: 'issue-link', href: `#/p/${encodeURIComponent(project.id)}/issues/${encodeURIComponent(e.issueId)}` }, 'Issue ›') : null,
    extra.length > 0 ? h('details', {}, h('summary', {}, 'Details'), ...extra) : null)
}
