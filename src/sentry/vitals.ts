import { LRUCache } from 'lru-cache'
import type { VitalName } from '../../common/vitals.ts'
import { MAX_DURATION_MS } from '../contract/limits.ts'
import type { IngestEvent } from '../contract/index.ts'
import { jsonObject, type EnvelopeItem } from './envelope.ts'
import { hexId, labelsOf, sentryId, type MappedEvent } from './event.ts'
import { SENTRY_MAX_EVENT_BYTES, SENTRY_PAGELOADS_KEPT } from './limits.ts'
import { num, obj, sentryTime, str, text, type Json } from './values.ts'

/*
 * Core Web Vitals from @sentry/browser's performance data (docs/sentry.md): a pageload `transaction`'s measurements
 * (`traceLifecycle: "static"`, and SDKs before 11) and the spans of `span` items (v1 standalone spans, v2 span
 * containers: what 11 streams by default). Everything else of them is dropped.
 */

/** The vitals kept, by Sentry's measurement name (also its attribute's: `browser.web_vital.<name>.value`). */
const VITALS: readonly (readonly [string, VitalName])[] = [['lcp', 'LCP'], ['inp', 'INP'], ['cls', 'CLS'], ['fcp', 'FCP'], ['ttfb', 'TTFB']]

/** Where a vital's element is named: LCP's largest element, INP's target, CLS's first shift source (new name, old name). */
const ELEMENT_KEYS: Partial<Record<VitalName, readonly string[]>> = {
  LCP: ['browser.web_vital.lcp.element', 'lcp.element'],
  INP: ['browser.web_vital.inp.target'],
  CLS: ['browser.web_vital.cls.source.1', 'cls.source.1'],
}

/** Milliseconds per unit of a measurement of time; a vital in any other unit is not one. */
const MS_PER_UNIT: Readonly<Record<string, number>> = { '': 1, millisecond: 1, second: 1000, microsecond: 0.001, nanosecond: 0.000_001 }

/**
 * The URL of page loads seen lately, by project and span id: under span streaming the LCP, CLS and INP spans name
 * their page load (`sentry.pageload.span_id`) but not its URL, which its pageload span sent when it ended. Bounded;
 * one not remembered (another process saw the page load, or it was forgotten) leaves its vitals without a URL.
 */
const pageloads = new LRUCache<string, string>({ max: SENTRY_PAGELOADS_KEPT })
const pageloadKey = (projectId: string, spanId: string): string => `${projectId}\u0000${spanId}`

/** A `transaction` or `span` item as the vitals it carries, or null when it has none (or is not JSON, or too large). */
export function mapPerformance(item: EnvelopeItem, header: Json, now: number, projectId: string): MappedEvent | null {
  if (item.payload.length > SENTRY_MAX_EVENT_BYTES) return null
  const json = jsonObject(item.payload)
  if (json === null) return null
  return item.type === 'transaction' ? mapTransaction(json, header, now, projectId) : mapSpans(json, header, now, projectId)
}

/**
 * A pageload transaction (`contexts.trace.op: "pageload"`): a WEB_VITAL for each of its measurements `lcp`, `cls`,
 * `fcp`, `ttfb` (and `inp`), on `request.url`, with LCP's element and CLS's first source from the trace's data, at the
 * page load's start. Its visit is an event's (labelsOf): the replay's when it names one. Other transactions: null.
 */
export function mapTransaction(transaction: Json, header: Json, now: number, projectId: string): MappedEvent | null {
  const trace = obj(obj(transaction.contexts)?.trace) ?? {}
  const data = obj(trace.data) ?? {}
  if ((str(trace.op) ?? str(data['sentry.op'])) !== 'pageload') return null
  const eventId = sentryId(transaction.event_id) ?? sentryId(header.event_id) ?? hexId(transaction)
  const spanId = str(trace.span_id) ?? eventId
  const labels = labelsOf(transaction, header)
  const url = labels.page ?? str(data['url.full'])
  if (url !== undefined) pageloads.set(pageloadKey(projectId, spanId), url)
  const measurements = obj(transaction.measurements) ?? {}
  const at = sentryTime(transaction.start_timestamp) ?? sentryTime(transaction.timestamp) ?? now
  const events = vitalsOf(spanId, at, url, (key) => data[key], (name) => {
    const m = obj(measurements[name])
    return m && vitalValue(name, m.value, m.unit)
  })
  return events.length === 0 ? null : { ...labels, eventId, events }
}

/**
 * A `span` item's vitals: a v2 container (`{version: 2, items: [span]}`, attributes as `{value, type}`) or a v1
 * standalone span (attributes in `data`, values in `measurements`). A span's vitals are its attributes
 * `browser.web_vital.<lcp|inp|cls|fcp|ttfb>.value` (the pageload span's TTFB and FCP, the LCP, CLS and INP spans') or
 * its measurements of those names; its page is `url.full`, else the URL of the page load it names; its element is
 * LCP's `browser.web_vital.lcp.element`, INP's `browser.web_vital.inp.target` (v1: the span's description), CLS's
 * first `browser.web_vital.cls.source.N`. Its visit is the one of its replay (`sentry.replay_id`, else the envelope's
 * trace), else its user's or address's, from the attributes the SDK sends (`user.id`, `user_agent.original`, …).
 */
export function mapSpans(container: Json, header: Json, now: number, projectId: string): MappedEvent | null {
  const v2 = container.version === 2 && Array.isArray(container.items)
  const spans = (v2 ? container.items as unknown[] : [container]).map(obj).filter((s): s is Json => s !== undefined)
  const attributes = (span: Json) => (key: string): unknown => (v2 ? obj(obj(span.attributes)?.[key])?.value : obj(span.data)?.[key])
  // Page loads first: a container may hold a pageload span and the vitals that name it.
  for (const span of spans) {
    const attr = attributes(span)
    const url = str(attr('url.full'))
    if ((str(attr('sentry.op')) ?? str(span.op)) === 'pageload' && url !== undefined && str(span.span_id)) {
      pageloads.set(pageloadKey(projectId, str(span.span_id) ?? ''), url)
    }
  }
  const events: IngestEvent[] = []
  for (const span of spans) {
    const attr = attributes(span)
    const spanId = str(span.span_id)
    if (spanId === undefined) continue
    const pageload = str(attr('sentry.pageload.span_id')) ?? str(attr('sentry.segment.id'))
    const url = str(attr('url.full')) ?? (pageload === undefined ? undefined : pageloads.get(pageloadKey(projectId, pageload)))
    const measurements = obj(span.measurements) ?? {}
    const description = v2 ? undefined : str(span.description)
    events.push(...vitalsOf(spanId, sentryTime(span.start_timestamp) ?? now, url, (key) => attr(key) ?? (key === ELEMENT_KEYS.INP?.[0] ? description : undefined), (name) => {
      const m = obj(measurements[name])
      return vitalValue(name, attr(`browser.web_vital.${name}.value`) ?? m?.value, m?.unit)
    }))
  }
  const first = spans[0]
  if (events.length === 0 || first === undefined) return null
  const attr = attributes(first)
  const labels = labelsOf({
    user: { id: attr('user.id'), email: attr('user.email'), username: attr('user.name'), ip_address: attr('user.ip_address') },
    release: attr('sentry.release'), environment: attr('sentry.environment'),
    request: { headers: { 'User-Agent': attr('user_agent.original') } },
    contexts: { replay: { replay_id: attr('sentry.replay_id') ?? attr('replay_id') } },
    ...(obj(container.ingest_settings)?.infer_ip === 'never' && { sdk: { settings: { infer_ip: 'never' } } }),
  }, header)
  return { ...labels, eventId: hexId(['span', ...spans.map((s) => s.span_id)]), events }
}

/** A WEB_VITAL per vital `valueOf` gives, ids from the span and the metric so a resend stores nothing twice. */
function vitalsOf(
  spanId: string, at: number, url: string | undefined, attr: (key: string) => unknown, valueOf: (name: string) => number | undefined,
): IngestEvent[] {
  const events: IngestEvent[] = []
  for (const [key, name] of VITALS) {
    const value = valueOf(key)
    if (value === undefined) continue
    const element = (ELEMENT_KEYS[name] ?? []).map((k) => str(attr(k))).find((e) => e !== undefined)
    events.push({
      id: `sentry-vital-${spanId}-${name}`, type: 'WEB_VITAL', createdAt: at, name, value,
      ...(url !== undefined && { url: text(url, 'url') }), ...(element !== undefined && { element: text(element, 'element') }),
    })
  }
  return events
}

/** A measurement's value in the ingest schema's unit (ms; CLS unitless), or undefined when it is none or out of bounds. */
function vitalValue(name: string, value: unknown, unit: unknown): number | undefined {
  const n = num(value)
  const scale = name === 'cls' ? 1 : MS_PER_UNIT[typeof unit === 'string' ? unit : '']
  if (n === undefined || scale === undefined) return undefined
  const scaled = n * scale
  return scaled >= 0 && scaled <= MAX_DURATION_MS ? scaled : undefined
}
