import rrwebPlayer from 'rrweb-player'
import { api, type RecordingInfo } from '../api.ts'
import { h } from '../dom.ts'

type RecordedEvent = { type: number; timestamp: number }

/** rrweb's EventType.FullSnapshot. */
const FULL_SNAPSHOT = 2

export interface Replay {
  /** Moves the player to a server-clock instant (epoch ms), paused. */
  seek(at: number): void
  /** Calls back with the server-clock instant the player shows, as it plays. */
  onTime(fn: (at: number) => void): void
}

/**
 * Loads every stored chunk in order and starts rrweb-player on them. The recorded page renders in
 * rrweb's sandboxed iframe (no allow-scripts) under the dashboard's CSP, so nothing recorded runs.
 * Recording times are on the visitor clock; the service corrected chunk times like event times,
 * and that difference maps one clock onto the other.
 */
export async function mountReplay(target: HTMLElement, base: string, info: RecordingInfo): Promise<Replay | null> {
  const first = info.chunks[0]
  if (!first) return null
  const events: RecordedEvent[] = []
  for (const chunk of info.chunks) {
    // The browser inflates the gzip answer itself (Content-Encoding: gzip).
    events.push(...await api<RecordedEvent[]>('GET', `${base}/recording/chunks/${encodeURIComponent(chunk.id)}`))
  }
  const firstEvent = events[0]
  if (!firstEvent || events.length < 2) return null
  const clockOffset = Date.parse(first.startedAt) - firstEvent.timestamp
  const start = firstEvent.timestamp
  // rrweb applies the events strictly before a paused seek's target and schedules the rest; a seek
  // before the opening snapshot would leave the previous picture, so seeks land just after it.
  const firstPicture = (events.find((e) => e.type === FULL_SNAPSHOT)?.timestamp ?? start) - start + 1
  const width = Math.max(320, target.clientWidth - 8)
  const player = new rrwebPlayer({
    target,
    props: {
      // rrweb-player's own event type; these are its events, as recorded.
      events: events as never,
      width,
      height: Math.round(width * 0.6),
      autoPlay: false,
      skipInactive: true,
      showController: true,
      mouseTail: false,
    },
  })
  return {
    seek(at) {
      player.goto(Math.max(firstPicture, at - clockOffset - start), false)
    },
    onTime(fn) {
      player.addEventListener('ui-update-current-time', (event) => {
        const payload = (event as { payload?: unknown }).payload
        if (typeof payload === 'number') fn(start + clockOffset + payload)
      })
    },
  }
}

/** What the replay pane says when there is nothing to play, and why. */
export function noReplay(info: RecordingInfo | null): HTMLElement {
  if (info && info.recording.droppedChunks > 0 && info.recording.chunks === 0) {
    return h('p', { class: 'empty' }, `No replay: ${info.recording.droppedChunks} recording chunks were over the size limits and were dropped.`)
  }
  return h('p', { class: 'empty', id: 'no-replay' }, 'No screen recording for this session. The SDK records one unless it was initialised with record: false.')
}
