import { MAX_DURATION_MS } from '../contract/limits.ts'
import type { IngestEvent } from '../contract/index.ts'
import { contentId, ERROR_LEVELS, type Json, list, num, obj, sentryTime, str, text } from './values.ts'

/** Breadcrumb categories of an outgoing HTTP request, besides type `http`: browsers', Python's, Ruby's, Node's. */
const HTTP_CATEGORIES: ReadonlySet<string> = new Set(['fetch', 'xhr', 'http', 'httplib', 'net.http', 'http.client', 'requests', 'httpx'])

/** The first of `keys` in `data` that holds a value `read` takes. */
function first<T>(data: Json, keys: readonly string[], read: (value: unknown) => T | undefined): T | undefined {
  for (const key of keys) {
    const value = read(data[key])
    if (value !== undefined) return value
  }
  return undefined
}

/** An HTTP status as the SDKs write it: a number, or (sentry-ruby) digits. */
const status = (value: unknown): number | undefined => num(value) ?? (typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : undefined)

/**
 * Breadcrumbs as events, each with an id from its content: Sentry sends the last 100 with every event, so the
 * same crumb arrives again with the next error and is stored once.
 * - `ui.click` → CLICK, `ui.input` → INPUT (the element's path as message);
 * - `navigation` → NAVIGATION to `data.to`;
 * - an HTTP request (type `http`, or a category of HTTP_CATEGORIES) with a status ≥ 400, or none (the request
 *   failed) → HTTP_ERROR, its method and status read under the keys every SDK writes (`method`, OpenTelemetry's
 *   `http.request.method`, `http.method`; `status_code`, `http.response.status_code`, sentry-ruby's `status`);
 * - `console` at level error → CONSOLE_ERROR.
 * Others (requests answered 1xx–3xx, console logs, `sentry.event`) add nothing a triager needs and are left out;
 * requests to this server's own ingest or to Sentry's are not the page's.
 */
export function breadcrumbsOf(event: Json, base: string | undefined, isOwnUrl: (url: string) => boolean): IngestEvent[] {
  const events: IngestEvent[] = []
  for (const raw of list(event.breadcrumbs)) {
    const crumb = obj(raw)
    const at = sentryTime(crumb?.timestamp)
    if (!crumb || at === undefined) continue
    const category = str(crumb.category) ?? ''
    const data = obj(crumb.data) ?? {}
    const message = str(crumb.message)
    const id = contentId('b', `${at}\u0000${category}\u0000${message ?? ''}\u0000${Object.keys(data).length === 0 ? '' : JSON.stringify(data)}`)
    if (category === 'ui.click' || category === 'ui.input') {
      events.push({ id, type: category === 'ui.click' ? 'CLICK' : 'INPUT', createdAt: at, message: text(message ?? category, 'message') })
    } else if (category === 'navigation') {
      const to = optional(str(data.to), base)
      if (to) events.push({ id, type: 'NAVIGATION', createdAt: at, url: text(to, 'url') })
    } else if (crumb.type === 'http' || HTTP_CATEGORIES.has(category)) {
      const request = httpError(id, at, data, message, base, isOwnUrl)
      if (request) events.push(request)
    } else if (category === 'console' && ERROR_LEVELS.has(str(crumb.level) ?? '')) {
      const args = Array.isArray(data.arguments) ? data.arguments.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ') : undefined
      events.push({ id, type: 'CONSOLE_ERROR', createdAt: at, message: text(message ?? args ?? 'console.error', 'message') })
    }
  }
  return events
}

/** An HTTP breadcrumb as an HTTP_ERROR, or null when the request succeeded (1xx–3xx), names no URL or is the SDK's own. */
function httpError(
  id: string, at: number, data: Json, message: string | undefined, base: string | undefined, isOwnUrl: (url: string) => boolean,
): IngestEvent | null {
  const url = optional(str(data.url), base)
  const code = first(data, ['status_code', 'http.response.status_code', 'status'], status)
  if (!url || isOwnUrl(url) || (code !== undefined && code < 400)) return null
  const method = first(data, ['method', 'http.request.method', 'http.method'], (v) => {
    const m = str(v)
    return m !== undefined && /^[A-Za-z]{1,16}$/.test(m) ? m : undefined
  })
  const duration = num(data.duration) ?? (num(data.end_timestamp) !== undefined && num(data.start_timestamp) !== undefined
    ? ((data.end_timestamp as number) - (data.start_timestamp as number)) * 1000 : undefined)
  return {
    id, type: 'HTTP_ERROR', createdAt: at, url: text(url, 'url'), method: method ?? 'GET',
    statusCode: code !== undefined && Number.isInteger(code) && code <= 599 ? code : null,
    ...(duration !== undefined && duration >= 0 && duration <= MAX_DURATION_MS && { durationMs: duration }),
    message: code === undefined ? text(message ?? 'The request failed (network error)', 'message') : null,
  }
}

/** A URL as the page wrote it (`/api/cart`), made absolute against the page's, as the browser resolved it. */
export function resolveUrl(url: string, base: string | undefined): string {
  try {
    return new URL(url, base).href
  } catch {
    return url
  }
}

const optional = (url: string | undefined, base: string | undefined): string | undefined => (url === undefined ? undefined : resolveUrl(url, base))
