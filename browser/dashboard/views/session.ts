import { REPLAY_JUMP_AFTER_MS } from '../../../common/limits.ts'
import { atLeast } from '../../../common/roles.ts'
import { api, type Headline, type ProjectSummary, type RecordingInfo, type SessionEvent, type SessionItem } from '../api.ts'
import { clock, copyButton, formatDuration, formatTime, h, pagePath, plural, timeTag } from '../dom.ts'
import { mountReplay, noReplay, replayNote, type Replay } from './replay.ts'
import { deleteVisitButton } from './erase.ts'
import { publicLinkButton } from './public-links.ts'
import { badgeText, headlineText } from './sessions.ts'
import { stackBlock } from './stack.ts'
import { visitVitals } from './vitals.ts'

interface Detail { session: SessionItem; events: SessionEvent[] }

/** A click that did nothing, or one of a burst: shown in the error tone, like the list's headline, though not counted as an error. */
const frustrated = (e: SessionEvent) => e.type === 'RAGE_CLICK' || e.type === 'DEAD_CLICK'
const isError = (e: SessionEvent) => e.type === 'ERROR' || e.type.endsWith('_ERROR')

/** The timeline's kinds, each a filter toggle; an event may be of several (a failed request is an error and network). */
const KINDS = [
  { id: 'errors', label: 'Errors', match: isError },
  { id: 'frustration', label: 'Frustration', match: frustrated },
  { id: 'network', label: 'Network', match: (e: SessionEvent) => e.type === 'HTTP_ERROR' || e.type === 'SLOW_REQUEST' || e.method !== undefined },
  { id: 'console', label: 'Console', match: (e: SessionEvent) => e.type.startsWith('CONSOLE') },
  { id: 'clicks', label: 'Clicks', match: (e: SessionEvent) => e.type === 'CLICK' || e.type === 'INPUT' },
  { id: 'navigation', label: 'Navigation', match: (e: SessionEvent) => e.type === 'NAVIGATION' },
  { id: 'reports', label: 'Reports', match: (e: SessionEvent) => e.type === 'USER_REPORT' },
] as const

const asHeadline = (e: SessionEvent): Headline =>
  ({ type: e.type, message: e.message, url: e.url ?? null, method: e.method ?? null, statusCode: e.statusCode })

const tone = (e: SessionEvent) => (e.type === 'USER_REPORT' ? 'report' : isError(e) || frustrated(e) ? 'error'
  : e.type === 'SLOW_REQUEST' ? 'slow' : 'info')

/**
 * One visit, built for triage: a title that says what happened, the replay first (above the fold, the larger
 * column), compact facts and the timeline beside it — or below it on a phone. Timeline and replay follow each
 * other, on one clock: the player's.
 */
export async function renderSession(main: HTMLElement, project: ProjectSummary, id: string, params: URLSearchParams): Promise<void> {
  const base = `/projects/${encodeURIComponent(project.id)}/sessions/${encodeURIComponent(id)}`
  const [detail, recording] = await Promise.all([
    api<Detail>('GET', base),
    api<RecordingInfo>('GET', `${base}/recording`).catch(() => null),
  ])
  const s = detail.session
  // 00:00 of the player is its first recorded event, whose server-clock time is the earliest chunk's start.
  const starts = (recording?.chunks ?? []).map((c) => Date.parse(c.startedAt))
  const origin = starts.length > 0 ? Math.min(...starts) : Date.parse(s.startedAt)
  const troubles = detail.events.filter((e) => tone(e) === 'error')
  const reports = detail.events.filter((e) => e.type === 'USER_REPORT')
  const lead = troubles[0] ?? reports[0]
  const entry = s.entryUrl === null ? null : pagePath(s.entryUrl)

  const playerBox = h('div', { class: 'player', id: 'player' })
  const timeline = h('ol', { class: 'timeline', id: 'timeline', 'aria-label': 'Events of the visit' })
  const filters = timelineFilters(detail.events, () => { applyFilters() })
  main.append(
    h('p', { class: 'back' }, h('a', { href: `#/p/${encodeURIComponent(project.id)}/sessions` }, `‹ ${project.name}: sessions`)),
    h('h1', { id: 'session-title', class: lead ? 'broken' : null }, lead ? headlineText(asHeadline(lead)) : `Visit to ${entry ?? 'the site'}`),
    h('p', { class: 'session-sub', id: 'session-sub' }, ...summary(s, entry, detail.events, reports.length)),
    h('div', { class: 'session-grid' },
      h('section', { class: 'replay-pane', 'aria-label': 'Replay' }, playerBox, visitVitals(detail.events)),
      h('section', { class: 'side-pane', 'aria-label': 'Facts and timeline' },
        facts(s), h('h2', { class: 'timeline-head' }, 'Timeline'), filters.element, timeline)),
    // Erasing is an admin's.
    ...(atLeast(project.role, 'admin') ? [h('section', { class: 'visit-actions' }, deleteVisitButton(project, s.id))] : []))

  let replay: Replay | null = null
  /** After a jump, the row clicked stays selected while the player settles just past it. */
  let pinnedUntil = -Infinity
  const items = detail.events.map((e) => {
    const at = Date.parse(e.createdAt)
    const item = eventItem(e, at - origin, project)
    const jump = () => {
      select(item)
      pinnedUntil = at + REPLAY_JUMP_AFTER_MS
      replay?.seek(at + REPLAY_JUMP_AFTER_MS)
    }
    item.addEventListener('click', (event) => {
      if ((event.target as HTMLElement).closest('a, button, .details')) return
      jump()
    })
    item.addEventListener('keydown', (event) => {
      if (event.target !== item || (event.key !== 'Enter' && event.key !== ' ')) return
      event.preventDefault()
      jump()
    })
    timeline.append(item)
    return { item, at, event: e }
  })
  const none = h('li', { class: 'empty', id: 'timeline-none', hidden: items.length > 0 }, items.length === 0 ? 'No events.' : 'No event matches the filters.')
  timeline.append(none)

  function applyFilters(): void {
    let visible = 0
    for (const x of items) {
      x.item.hidden = !filters.matches(x.event)
      if (!x.item.hidden) visible++
    }
    none.hidden = visible > 0
  }

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
  playerBox.append(replayNote(recording), momentLink(project, s.id, replay))
  if (project.publicReplays && atLeast(project.role, 'member')) playerBox.append(publicLinkButton(project, s.id))
  replay.markers([...troubles, ...reports].map((e) => ({
    at: Date.parse(e.createdAt), tone: tone(e),
    label: `${badgeText(e.type, e.statusCode)} at ${clock(Date.parse(e.createdAt) - origin)}: ${headlineText(asHeadline(e))}`,
    onSelect: () => { items.find((x) => x.event === e)?.item.click() },
  })))
  replay.onTime((at) => {
    if (at <= pinnedUntil + 50) return
    pinnedUntil = -Infinity
    let last: HTMLElement | null = null
    for (const x of items) if (x.at <= at && !x.item.hidden) last = x.item
    select(last)
  })
  // A moment link (…?t=83) opens the player at that second of its clock, paused there.
  const t = Number(params.get('t') ?? NaN)
  if (Number.isFinite(t) && t >= 0) replay.seekOffset(t * 1000)
}

/** "Copy link at 01:23": the URL of this visit at the player's current second, for any teammate with a role on the project. */
function momentLink(project: ProjectSummary, visitId: string, replay: Replay): HTMLElement {
  let seconds = 0
  const label = () => `Copy link at ${clock(seconds * 1000)}`
  const button = copyButton(() => `${location.origin}${location.pathname}#/p/${encodeURIComponent(project.id)}/s/${encodeURIComponent(visitId)}?t=${seconds}`, label)
  button.id = 'copy-moment'
  replay.onTime((_at, offset) => {
    seconds = Math.max(0, Math.floor(offset / 1000))
    if (button.textContent.startsWith('Copy link')) button.textContent = label()
  })
  return h('p', { class: 'moment' }, button)
}

/** "on /checkout · user ann · 2 errors · 1 frustrated click · 1 report": the rest of what happened, under the title. */
function summary(s: SessionItem, entry: string | null, events: SessionEvent[], reports: number): (Node | string)[] {
  const parts: (Node | string)[] = []
  const errors = events.filter(isError).length
  const clicks = events.filter(frustrated).length
  if (entry) parts.push(h('span', { title: s.entryUrl ?? '' }, `Entered on ${entry}`))
  if (s.user) parts.push(h('span', {}, 'User ', h('b', {}, s.user.id)))
  if (errors > 0) parts.push(h('span', { class: 'bad' }, plural(errors, 'error')))
  if (clicks > 0) parts.push(h('span', { class: 'bad' }, plural(clicks, 'frustrated click')))
  if (reports > 0) parts.push(h('span', { class: 'report-text' }, plural(reports, 'visitor report')))
  if (s.events.slow > 0) parts.push(`${s.events.slow} slow`)
  parts.push(timeTag(s.lastSeenAt))
  return parts.flatMap((p, i) => (i === 0 ? [p] : [h('span', { class: 'sep', 'aria-hidden': 'true' }, ' · '), p]))
}

/** The visit's facts, compact; the raw User-Agent, traits and tags on demand. */
function facts(s: SessionItem): HTMLElement {
  const fact = (term: string, ...value: (Node | string)[]) => h('div', {}, h('dt', {}, term), h('dd', {}, ...value))
  const pairs = (o: Record<string, unknown>) => Object.entries(o).map(([k, v]) => `${k}=${String(v)}`).join(' ')
  const agent = [s.browser, s.os].filter(Boolean).join(' · ') || 'Unknown'
  return h('dl', { class: 'facts', id: 'session-facts' },
    fact('Started', h('span', { title: s.startedAt }, formatTime(s.startedAt))),
    fact('Duration', formatDuration(Date.parse(s.lastSeenAt) - Date.parse(s.startedAt))),
    s.user ? fact('User', s.user.id, s.user.traits ? h('span', { class: 'hint' }, ` ${pairs(s.user.traits)}`) : '') : null,
    fact('Browser', s.userAgent
      ? h('details', { class: 'raw' }, h('summary', {}, agent), h('code', { id: 'user-agent' }, s.userAgent))
      : agent),
    fact('Country', s.country ?? '—'), fact('IP', s.ip ?? '—'),
    fact('Events', `${s.events.total} (${s.events.errors} errors, ${s.events.slow} slow)`),
    s.release || s.environment ? fact('Release', [s.release, s.environment].filter(Boolean).join(' · ')) : null,
    s.tags ? fact('Tags', h('span', { title: 'Set by Sessionwatch.setTags on the page' }, pairs(s.tags))) : null,
    s.utm ? fact('Referral', h('span', { title: 'utm_* and click ids of the landing page URL' }, pairs(s.utm))) : null)
}

/** Kind toggles (with how many events each has) and a text filter; `matches` says whether an event passes both. */
function timelineFilters(events: SessionEvent[], changed: () => void) {
  const on = new Set<string>()
  let text = ''
  const toggles = KINDS.map((k) => {
    const count = events.filter(k.match).length
    const button = h('button', {
      type: 'button', class: `chip toggle kind-${k.id}`, 'aria-pressed': 'false', id: `kind-${k.id}`, disabled: count === 0,
    }, `${k.label} `, h('span', { class: 'count' }, count))
    button.addEventListener('click', () => {
      if (on.has(k.id)) on.delete(k.id)
      else on.add(k.id)
      button.setAttribute('aria-pressed', String(on.has(k.id)))
      changed()
    })
    return button
  })
  const input = h('input', { type: 'search', id: 'timeline-filter', placeholder: 'Filter events…', 'aria-label': 'Filter events by text' })
  input.addEventListener('input', () => {
    text = input.value.trim().toLowerCase()
    changed()
  })
  return {
    element: h('div', { class: 'timeline-tools' }, h('div', { class: 'kinds', role: 'group', 'aria-label': 'Show only' }, ...toggles), input),
    matches: (e: SessionEvent) => (on.size === 0 || KINDS.some((k) => on.has(k.id) && k.match(e)))
      && (text === '' || [e.type, e.message, e.url, e.selector, e.text, e.element, e.statusCode === null ? null : String(e.statusCode)]
        .some((v) => typeof v === 'string' && v.toLowerCase().includes(text))),
  }
}

/** A one-line caption: what happened, with the status of a failed request and the time of a slow one. */
function caption(e: SessionEvent): string {
  if (e.type === 'HTTP_ERROR') return `${e.method ?? ''} ${e.url ?? ''} → ${e.statusCode ?? 'failed'}`.trim()
  if (e.type === 'SLOW_REQUEST') return `${e.method ?? ''} ${e.url ?? ''} · ${Math.round(e.durationMs ?? 0).toLocaleString('en-US')} ms`.trim()
  if (e.type === 'NAVIGATION') return e.url ?? e.message ?? ''
  // The caption names the element by its text; the selector says which one it is.
  if (frustrated(e) && e.selector !== undefined && e.selector !== e.text) return `${e.message ?? ''} · ${e.selector}`
  return e.message ?? (e.url ? `${e.method ?? ''} ${e.url}`.trim() : '')
}

/** Ids tying each toggle to its details (event ids are the visitor's to choose, and may hold spaces). */
let detailsIds = 0

/** One event on one line — clock, kind, caption, its issue — with details folding out only when there are any. */
function eventItem(e: SessionEvent, offset: number, project: ProjectSummary): HTMLElement {
  const text = caption(e)
  const extra: HTMLElement[] = []
  if (text.length > 90) extra.push(h('p', { class: 'full' }, text))
  if (e.url && e.type !== 'NAVIGATION' && e.durationMs !== null && e.type !== 'SLOW_REQUEST') extra.push(h('p', {}, h('b', {}, 'Duration '), `${Math.round(e.durationMs)} ms`))
  for (const [label, value] of [['Selector', e.selector], ['Text', e.text], ['Element', e.element], ['Page', frustrated(e) || e.type === 'WEB_VITAL' ? e.url : undefined]] as const) {
    if (value) extra.push(h('p', {}, h('b', {}, `${label} `), value))
  }
  const stack = stackBlock(e)
  if (stack) extra.push(h('b', {}, 'Stack'), stack)
  if (e.reqBody) extra.push(h('b', {}, 'Request body'), h('pre', { tabindex: 0 }, e.reqBody))
  if (e.resBody) extra.push(h('b', {}, 'Response body'), h('pre', { tabindex: 0 }, e.resBody))
  const kind = tone(e)
  const item = h('li', { class: `event ${kind}`, 'data-type': e.type, 'data-id': e.id, tabindex: 0 },
    h('span', { class: 'at', title: formatTime(e.createdAt) }, clock(offset)),
    h('span', { class: `badge ${kind}` }, badgeText(e.type, e.statusCode)),
    h('span', { class: 'caption', title: text }, text),
    e.issueId ? h('a', { class: 'issue-link', href: `#/p/${encodeURIComponent(project.id)}/issues/${encodeURIComponent(e.issueId)}` }, 'Issue ›') : null)
  if (extra.length > 0) {
    const details = h('div', { class: 'details', id: `details-${++detailsIds}`, hidden: true }, ...extra)
    const toggle = h('button', { type: 'button', class: 'expand', 'aria-expanded': 'false', 'aria-controls': details.id, 'aria-label': 'Details' }, '▸')
    toggle.addEventListener('click', () => {
      details.hidden = !details.hidden
      toggle.setAttribute('aria-expanded', String(!details.hidden))
      toggle.textContent = details.hidden ? '▸' : '▾'
    })
    item.append(toggle, details)
  }
  return item
}
