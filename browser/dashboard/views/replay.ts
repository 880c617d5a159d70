import rrwebPlayer from 'rrweb-player'
import { api, type RecordingInfo } from '../api.ts'
import { h } from '../dom.ts'

type RecordedEvent = { type: number; timestamp: number; data?: { width?: unknown; height?: unknown } }

/** rrweb's EventType.FullSnapshot and EventType.Meta (which carries the recorded viewport's size). */
const FULL_SNAPSHOT = 2
const META = 4
/** rrweb-player's controller bar under the picture. */
const CONTROLLER_PX = 80

/** A point of interest on the scrubber: an error or a visitor report. */
export interface Marker {
  /** Server-clock instant (epoch ms). */
  at: number
  tone: string
  /** What a screen reader and the tooltip say. */
  label: string
  onSelect: () => void
}

export interface Replay {
  /** Moves the player to a server-clock instant (epoch ms), paused. */
  seek(at: number): void
  /** Moves the player to a time on its own clock (ms from its 00:00), paused: a moment link's. */
  seekOffset(offset: number): void
  /** Calls back with the server-clock instant the player shows and its own clock's time, as it plays or seeks. */
  onTime(fn: (at: number, offset: number) => void): void
  /** Puts markers on the scrubber, each a button that selects its event. */
  markers(list: Marker[]): void
}

/**
 * Loads every stored chunk in order and starts rrweb-player on them. The recorded page renders in
 * rrweb's sandboxed iframe (no allow-scripts) under the dashboard's CSP, so nothing recorded runs.
 * Recording times are on the visitor clock; the service corrected chunk times like event times,
 * and that difference maps one clock onto the other.
 */
export async function mountReplay(target: HTMLElement, base: string, info: Pick<RecordingInfo, 'chunks'>): Promise<Replay | null> {
  const first = info.chunks[0]
  if (!first) return null
  const events: RecordedEvent[] = []
  /** The chunk that holds the earliest event: its start on the corrected clock maps the visitor's clock onto it. */
  let anchor = { startedAt: Date.parse(first.startedAt), timestamp: Infinity }
  for (const chunk of info.chunks) {
    // The browser inflates the gzip answer itself (Content-Encoding: gzip).
    const chunkEvents = await api<RecordedEvent[]>('GET', `${base}/recording/chunks/${encodeURIComponent(chunk.id)}`)
    const earliest = Math.min(...chunkEvents.map((e) => e.timestamp))
    if (earliest < anchor.timestamp) anchor = { startedAt: Date.parse(chunk.startedAt), timestamp: earliest }
    events.push(...chunkEvents)
  }
  // In the order they were recorded: chunks are listed by their start on the corrected clock, which each upload's
  // own correction can shift by a few milliseconds, while rrweb's timestamps are the visitor's one clock. (Stable:
  // events of the same millisecond keep their order.)
  events.sort((a, b) => a.timestamp - b.timestamp)
  const firstEvent = events[0]
  if (!firstEvent || events.length < 2) return null
  const clockOffset = anchor.startedAt - anchor.timestamp
  const start = firstEvent.timestamp
  // rrweb applies the events strictly before a paused seek's target and schedules the rest; a seek
  // before the opening snapshot would leave the previous picture, so seeks land just after it.
  const firstPicture = (events.find((e) => e.type === FULL_SNAPSHOT)?.timestamp ?? start) - start + 1
  const { width, height } = frameSize(target, events.find((e) => e.type === META)?.data)
  const player = new rrwebPlayer({
    target,
    props: {
      // rrweb-player's own event type; these are its events, as recorded.
      events: events as never,
      width,
      height,
      autoPlay: false,
      skipInactive: true,
      showController: true,
      mouseTail: false,
    },
  })
  nameControls(target)
  const total = player.getMetaData().totalTime
  const seekOffset = (offset: number) => { player.goto(Math.min(total, Math.max(firstPicture, offset)), false) }
  return {
    seek(at) { seekOffset(at - clockOffset - start) },
    seekOffset,
    onTime(fn) {
      player.addEventListener('ui-update-current-time', (event) => {
        const payload = (event as { payload?: unknown }).payload
        if (typeof payload === 'number') fn(start + clockOffset + payload, payload)
      })
    },
    markers(list) {
      const bar = target.querySelector('.rr-progress')
      if (!bar || total <= 0) return
      const strip = h('div', { class: 'markers' })
      for (const m of list) {
        const share = Math.min(1, Math.max(0, (m.at - clockOffset - start) / total))
        const marker = h('button', { type: 'button', class: `marker ${m.tone}`, style: `left:${(share * 100).toFixed(2)}%`, title: m.label, 'aria-label': m.label })
        // The bar under it seeks to where it was pressed; the marker selects its event instead.
        marker.addEventListener('mousedown', (event) => { event.stopPropagation() })
        marker.addEventListener('click', (event) => {
          event.stopPropagation()
          m.onSelect()
        })
        strip.append(marker)
      }
      bar.append(strip)
    },
  }
}

/**
 * The picture's size: the column's width, and the recorded viewport's proportions — a phone's portrait page is
 * tall and narrow — within the height left on screen under the player's top, so its controls stay above the fold.
 * (A fixed landscape box showed a phone page without a viewport meta, 980 × 2,100 px, at a fifth of its size.)
 */
function frameSize(target: HTMLElement, meta: RecordedEvent['data']): { width: number; height: number } {
  const recorded = { width: Number(meta?.width) || 1280, height: Number(meta?.height) || 720 }
  const width = Math.max(240, Math.floor(target.clientWidth))
  const room = Math.max(200, Math.floor(window.innerHeight - Math.max(0, target.getBoundingClientRect().top) - CONTROLLER_PX - 16))
  return { width, height: Math.min(room, Math.round(width * (recorded.height / recorded.width))) }
}

/** rrweb-player's icon buttons and frame carry no names; screen readers need them. */
function nameControls(target: HTMLElement): void {
  target.querySelector('iframe')?.setAttribute('title', 'Replay of the visit')
  const buttons = target.querySelectorAll<HTMLButtonElement>('.rr-controller__btns button')
  for (const b of buttons) {
    if (b.textContent.trim() !== '') continue
    b.setAttribute('aria-label', b === buttons[0] ? 'Play or pause' : 'Full screen')
  }
  // Its switch has a label element, but an empty one (the words are in a span beside it).
  for (const input of target.querySelectorAll<HTMLInputElement>('.switch input')) input.setAttribute('aria-label', 'Skip inactive periods')
}

/** How the replay was recorded, under the player: whole, or from shortly before the visit's first error. */
export function replayNote(info: RecordingInfo | null): HTMLElement {
  const text = info?.recording.mode === 'onError'
    ? 'Recorded from an error: the replay starts shortly before the visit\'s first error (record: \'onError\').'
    : 'Recorded whole, from the start of the visit.'
  return h('p', { class: 'hint', id: 'replay-mode' }, text)
}

/** What the replay pane says when there is nothing to play, and why. */
export function noReplay(info: RecordingInfo | null): HTMLElement {
  if (info?.recording.evicted === true && info.recording.chunks === 0) {
    return h('p', { class: 'empty', id: 'no-replay' }, 'This visit had a screen recording; it was deleted, oldest first, to keep the project within '
      + 'its recording budget or the server\'s disk free. The visit and its events stay.')
  }
  if (info && info.recording.droppedChunks > 0 && info.recording.chunks === 0) {
    return h('p', { class: 'empty' }, `No replay: ${info.recording.droppedChunks} recording chunks were over the size limits and were dropped.`)
  }
  return h('p', { class: 'empty', id: 'no-replay' }, 'No screen recording for this session. The SDK records one unless it was initialised with record: false.')
}
