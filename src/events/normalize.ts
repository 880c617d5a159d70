import { TEXT_LIMITS } from '../contract/limits.ts'
import { scrub } from '../../common/scrub.ts'
import { limitText } from './text.ts'
import { formatVital, ratingOf } from '../../common/vitals.ts'
import { DETAIL_FIELDS, type EventDetail, type EventInput, type EventRecord, type ResolvedFrame, type TextField } from '../contract/index.ts'

/**
 * The one place event text is bounded and scrubbed, for ingest (our SDK's and Sentry's) and import alike: every text
 * field goes through common/scrub.ts's one pass (secrets by the built-in list and the project's own `maskFields`,
 * Bearer and Basic credentials, card numbers) before it is truncated: a cut JSON body no longer parses, and a cut
 * card number no longer passes Luhn yet is still half readable. Running it twice changes nothing.
 */
export function normalizeEvent(e: EventInput, maskFields: readonly string[] = []): EventRecord {
  const text = (field: TextField, value: string | null | undefined) => {
    if (value == null) return null
    // The scrub pass reads twice what is kept, never more: a secret or card number cut at the limit is still seen
    // whole, and a 1 MiB body costs what 2 × its limit does (the pass is linear, but ~50 ms a hostile MiB).
    const head = value.length > 2 * TEXT_LIMITS[field] ? value.slice(0, 2 * TEXT_LIMITS[field]) : value
    return limitText(field, scrub(head, maskFields), value.length - head.length)
  }
  const record: EventRecord = {
    id: e.id,
    type: e.type,
    createdAt: e.createdAt,
    url: text('url', e.url || null),
    method: limitText('method', e.method ? e.method.toUpperCase() : null),
    message: text('message', e.message),
    stack: text('stack', e.stack),
    statusCode: e.statusCode ?? null,
    durationMs: e.durationMs ?? null,
    reqBody: text('reqBody', e.reqBody),
    resBody: text('resBody', e.resBody),
    fingerprint: text('fingerprint', e.fingerprint),
    ...(e.frames != null && { frames: e.frames.map((f) => scrubFrame(f, maskFields)) }),
  }
  const detail = detailOf(e, text)
  if (detail === null) return record
  record.detail = detail
  record.message ??= captionOf(e.type, detail)
  return record
}

/**
 * The detail fields of an event (contract DETAIL_FIELDS), or null when it has none: texts bounded and scrubbed, and a
 * vital's rating computed from its value, so a page cannot rate its own metrics.
 */
function detailOf(e: EventInput, text: (field: TextField, value: string | null | undefined) => string | null): EventDetail | null {
  if (DETAIL_FIELDS.every((field) => e[field] == null)) return null
  const detail: EventDetail = {}
  const selector = text('selector', e.selector)
  if (selector !== null) detail.selector = selector
  const label = text('text', e.text)
  if (label !== null) detail.text = label
  if (e.count != null) detail.count = e.count
  if (e.name != null) detail.name = e.name
  if (e.value != null) detail.value = e.value
  if (e.name != null && e.value != null) detail.rating = ratingOf(e.name, e.value)
  const element = text('element', e.element)
  if (element !== null) detail.element = element
  return detail
}

/**
 * What the dashboard and search show of a click or vital that came without a message.
 *
 * @example
 * captionOf('RAGE_CLICK', { count: 6, text: 'Pay now', selector: 'button#pay' }) // 'Rage click ×6 on Pay now'
 */
export function captionOf(type: string, d: EventDetail): string | null {
  const target = d.text || d.selector || 'an element'
  if (type === 'RAGE_CLICK') return `Rage click ×${d.count ?? 1} on ${target}`
  if (type === 'DEAD_CLICK') return `Dead click on ${target}`
  if (type === 'WEB_VITAL' && d.name !== undefined && d.value !== undefined) return `${d.name} ${formatVital(d.name, d.value)} (${d.rating ?? ratingOf(d.name, d.value)})`
  return null
}

/** An SDK's frame with its file (a URL may carry a token) and its source lines (code may hold a key) scrubbed. */
function scrubFrame(frame: ResolvedFrame, maskFields: readonly string[]): ResolvedFrame {
  const clean = (value: string) => scrub(value, maskFields)
  const { file, context } = frame
  return {
    ...frame,
    file: file === null ? null : clean(file),
    context: context === null ? null : { pre: context.pre.map(clean), line: clean(context.line), post: context.post.map(clean) },
  }
}
