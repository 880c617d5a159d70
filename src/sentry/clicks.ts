import { elementSelector } from '../../common/selector.ts'
import { MAX_CLICK_COUNT } from '../contract/limits.ts'
import type { IngestEvent } from '../contract/index.ts'
import { CUSTOM } from '../recording/service.ts'
import { SENTRY_RAGE_CLICKS } from './limits.ts'
import { num, obj, sentryTime, str, text } from './values.ts'

/** Replay breadcrumb categories that tell of a frustrated click. */
const CLICK_CATEGORIES: ReadonlySet<string> = new Set(['ui.multiClick', 'ui.slowClickDetected'])

/**
 * The rage and dead clicks a Sentry replay segment tells of, from its click detector's breadcrumbs (rrweb custom
 * events tagged `breadcrumb`):
 * - `ui.multiClick` (the page answered, but the visitor kept clicking) and `ui.slowClickDetected` (no DOM change within
 *   the slow-click threshold) with `clickCount` ≥ SENTRY_RAGE_CLICKS → RAGE_CLICK with that count;
 * - `ui.slowClickDetected` with fewer clicks and `endReason: "timeout"` (nothing changed before `slowClickTimeout`)
 *   → DEAD_CLICK; one that ended in a late DOM change (`endReason: "mutation"`) is slow, not dead, and a double-click
 *   that got an answer is neither: they are left to the recording.
 * The element's selector comes from the recorded node (tag, id, name, classes: common/selector.ts), its text from the
 * node's own text unless the replay masked it, the page from the breadcrumb's `url`, else the segment's `page`. Ids
 * are the segment and the event's place in it, so a resent segment stores nothing twice.
 */
export function replayClicks(events: readonly unknown[], segment: number, page: string | undefined): IngestEvent[] {
  const clicks: IngestEvent[] = []
  events.forEach((raw, index) => {
    const event = raw as { type?: unknown; timestamp?: unknown; data?: { tag?: unknown; payload?: unknown } } | null
    if (event?.type !== CUSTOM || event.data?.tag !== 'breadcrumb') return
    const crumb = obj(event.data.payload)
    const category = str(crumb?.category)
    if (crumb === undefined || category === undefined || !CLICK_CATEGORIES.has(category)) return
    const data = obj(crumb.data) ?? {}
    const node = obj(data.node)
    const tag = str(node?.tagName)
    const at = sentryTime(crumb.timestamp) ?? num(event.timestamp)
    if (tag === undefined || at === undefined) return
    const count = Math.min(Math.max(1, Math.trunc(num(data.clickCount) ?? 1)), MAX_CLICK_COUNT)
    const rage = count >= SENTRY_RAGE_CLICKS
    if (!rage && !(category === 'ui.slowClickDetected' && data.endReason === 'timeout')) return
    const attributes = obj(node?.attributes) ?? {}
    const label = str(node?.textContent)?.replace(/\s+/g, ' ').trim()
    clicks.push({
      id: `sentry-click-${segment}-${index}`, type: rage ? 'RAGE_CLICK' : 'DEAD_CLICK', createdAt: at,
      selector: text(elementSelector(tag, { id: str(attributes.id), name: str(attributes.name), class: str(attributes.class) }), 'selector'),
      // A masked replay (maskAllText, the default) records every letter as `*`: no text is better than stars.
      ...(label && !/^[*\s]+$/.test(label) && { text: text(label, 'text') }),
      ...(rage && { count }),
      url: text(str(data.url) ?? page, 'url'),
    })
  })
  return clicks
}
