import { hash } from 'node:crypto'
import { MAX_DURATION_MS, MAX_PAGE_URL_LENGTH, TEXT_LIMITS } from '../contract/limits.ts'
import { MAX_ENVIRONMENT_LENGTH, MAX_META_KEY_LENGTH, MAX_META_VALUE_LENGTH, MAX_RELEASE_LENGTH, MAX_TAGS, MAX_TRAITS, MAX_USER_ID_LENGTH } from '../../common/limits.ts'
import { type IngestEvent, META_KEY_PATTERN, type VisitorUser } from '../contract/index.ts'

/*
 * How a Sentry event becomes Sessionwatch events and visit facts: one pure function per item type, documented
 * rule by rule in docs/sentry.md. Everything here is visitor input: every value is checked for its type and cut
 * to the bounds the ingest schema states, so what comes out is what a valid SDK batch could carry.
 */

type Json = Record<string, unknown>

/** What an event-like item (event, feedback, user_report, replay_event) says about its visit. */
export interface VisitLabels {
  user?: VisitorUser
  tags?: Record<string, string>
  release?: string
  environment?: string
  /** The page the event happened on (request.url). */
  page?: string
  /** The browser's User-Agent as the event carries it (request.headers). */
  userAgent?: string
  /** The Sentry replay this happened in: the visit's key when present. */
  replayId?: string
  /** The SDK was told not to collect the visitor's IP (sdk.settings.infer_ip "never"). */
  noIp?: boolean
}

export interface MappedEvent extends VisitLabels {
  /** The Sentry event id (32 lower-case hex digits): it names the stored events, so a resent event is stored once. */
  eventId: string
  events: IngestEvent[]
}

const HEX_ID = /^[0-9a-f]{32}$/

/** A Sentry id (32 hex digits, or a UUID with dashes) in its canonical form, or null. */
export function sentryId(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const id = value.replace(/-/g, '').toLowerCase()
  return HEX_ID.test(id) ? id : null
}

const obj = (value: unknown): Json | undefined =>
  (value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Json : undefined)
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)
const cut = (value: string | undefined, max: number): string | undefined => (value === undefined ? undefined : value.slice(0, max))
const list = (value: unknown): unknown[] => {
  if (Array.isArray(value)) return value
  const values = obj(value)?.values
  return Array.isArray(values) ? values : []
}

/** A Sentry time (seconds since the epoch, or an RFC 3339 string) in epoch milliseconds, or undefined. */
export function sentryTime(value: unknown): number | undefined {
  const seconds = num(value)
  if (seconds !== undefined) return seconds >= 0 && seconds < 253_402_300_800 ? Math.round(seconds * 1000) : undefined
  const text = str(value)
  if (text === undefined) return undefined
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`)
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined
}

/**
 * A short, stable id from content: the same breadcrumb sent again with a later event gets the same id. 96 bits of
 * SHA-1 (one-shot, the cheapest digest Node has): distinct breadcrumbs of one visit never collide in practice.
 */
export const contentId = (prefix: string, content: string): string => `${prefix}${hash('sha1', content, 'base64url').slice(0, 16)}`

/** Text the ingest schema would take for `field`: cut here so a huge value costs nothing downstream. */
const text = (value: unknown, field: keyof typeof TEXT_LIMITS): string | undefined => cut(str(value), TEXT_LIMITS[field] * 2)

/** An event id, 32 hex digits like Sentry's, from content: for an event that names none, so a resend still has the same. */
const hexId = (content: unknown): string => hash('sha256', JSON.stringify(content), 'hex').slice(0, 32)

/** The visit facts of an event-like payload: user, tags, release, environment, page, User-Agent, replay id. */
export function labelsOf(event: Json, envelopeHeader: Json = {}): VisitLabels {
  const labels: VisitLabels = {}
  const user = userOf(obj(event.user))
  if (user) labels.user = user
  const tags = tagsOf(event.tags)
  if (tags) labels.tags = tags
  const release = cut(str(event.release), MAX_RELEASE_LENGTH)
  if (release) labels.release = release
  const environment = cut(str(event.environment), MAX_ENVIRONMENT_LENGTH)
  if (environment) labels.environment = environment
  const request = obj(event.request)
  const page = str(request?.url)
  if (page !== undefined && page.length <= MAX_PAGE_URL_LENGTH) labels.page = page
  const headers = obj(request?.headers)
  const userAgent = str(headers?.['User-Agent']) ?? str(headers?.['user-agent'])
  if (userAgent) labels.userAgent = userAgent
  const contexts = obj(event.contexts)
  const replayId = sentryId(obj(contexts?.replay)?.replay_id) ?? sentryId(obj(contexts?.feedback)?.replay_id)
    ?? sentryId(obj(event.tags)?.replayId) ?? sentryId(event.replay_id) ?? sentryId(obj(envelopeHeader.trace)?.replay_id)
  if (replayId) labels.replayId = replayId
  if (obj(obj(event.sdk)?.settings)?.infer_ip === 'never') labels.noIp = true
  return labels
}

/** Sentry's user (id, else username, else email) as the visit's user; username and email become traits. */
function userOf(user: Json | undefined): VisitorUser | undefined {
  if (!user) return undefined
  const id = str(user.id) ?? (num(user.id) === undefined ? undefined : String(user.id)) ?? str(user.username) ?? str(user.email)
  if (id === undefined) return undefined
  const traits: Record<string, string | number | boolean> = {}
  for (const key of ['username', 'email', 'name', 'segment']) {
    const value = str(user[key])
    if (value !== undefined && Object.keys(traits).length < MAX_TRAITS) traits[key] = value.slice(0, MAX_META_VALUE_LENGTH)
  }
  return { id: id.slice(0, MAX_USER_ID_LENGTH), traits: Object.keys(traits).length > 0 ? traits : null }
}

const KEY = new RegExp(META_KEY_PATTERN)

/**
 * Sentry tags (an object, or a list of [key, value] pairs) as visit tags: keys a `tag.<key>=` filter can name,
 * values as strings, at most MAX_TAGS. `replayId` is left out: it names the visit itself.
 */
function tagsOf(value: unknown): Record<string, string> | undefined {
  const pairs: [unknown, unknown][] = Array.isArray(value)
    ? value.filter((p): p is [unknown, unknown] => Array.isArray(p) && p.length === 2)
    : Object.entries(obj(value) ?? {})
  const tags: Record<string, string> = {}
  let n = 0
  for (const [key, raw] of pairs) {
    if (typeof key !== 'string' || key === 'replayId' || key.length > MAX_META_KEY_LENGTH || !KEY.test(key) || key in tags) continue
    const v = typeof raw === 'string' ? raw : typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : undefined
    if (v === undefined) continue
    if (n++ >= MAX_TAGS) break
    tags[key] = v.slice(0, MAX_META_VALUE_LENGTH)
  }
  return n > 0 ? tags : undefined
}

/** Sentry levels that make a message event an error. */
const ERROR_LEVELS = new Set(['error', 'fatal'])

/**
 * An `event` item: an ERROR per exception, or a MESSAGE (ERROR when its level is error or fatal) when it has none;
 * its breadcrumbs as the visit's earlier clicks, inputs, navigations, failed requests and console errors.
 * `ingestUrl` tells this server's own URLs (and Sentry's), whose requests are not the page's.
 */
export function mapSentryEvent(event: Json, envelopeHeader: Json, now: number, isOwnUrl: (url: string) => boolean): MappedEvent {
  const eventId = sentryId(event.event_id) ?? sentryId(envelopeHeader.event_id) ?? hexId(event)
  const at = sentryTime(event.timestamp) ?? now
  const labels = labelsOf(event, envelopeHeader)
  const base = labels.page
  const events: IngestEvent[] = breadcrumbsOf(event, base, isOwnUrl)
  const fingerprint = fingerprintOf(event.fingerprint)
  const exceptions = list(event.exception).map(obj).filter((e): e is Json => e !== undefined)
  if (exceptions.length > 0) {
    // Sentry lists a chain oldest cause first; the last is the error that was thrown.
    exceptions.reverse().forEach((exception, i) => {
      const type = str(exception.type)
      const value = str(exception.value)
      const message = type && value ? `${type}: ${value}` : value ?? type ?? 'Error'
      events.push({
        id: i === 0 ? eventId : `${eventId}-${i}`, type: 'ERROR', createdAt: at, message: text(message, 'message'),
        stack: stackOf(message, obj(exception.stacktrace)), url: text(base, 'url'),
        ...(fingerprint !== undefined && { fingerprint }),
      })
    })
  } else {
    const message = messageOf(event)
    const level = str(event.level) ?? 'error'
    events.push({
      id: eventId, type: ERROR_LEVELS.has(level) ? 'ERROR' : 'MESSAGE', createdAt: at, message: text(message ?? `(${level} event without a message)`, 'message'),
      url: text(base, 'url'), ...(fingerprint !== undefined && { fingerprint }),
    })
  }
  return { ...labels, eventId, events }
}

/** A feedback item (the widget or captureFeedback): a USER_REPORT with the visitor's message. */
export function mapFeedback(event: Json, envelopeHeader: Json, now: number): MappedEvent {
  const eventId = sentryId(event.event_id) ?? sentryId(envelopeHeader.event_id) ?? hexId(event)
  const feedback = obj(obj(event.contexts)?.feedback) ?? {}
  const labels = labelsOf(event, envelopeHeader)
  const page = str(feedback.url) ?? labels.page
  return {
    ...labels, eventId,
    events: [{
      id: eventId, type: 'USER_REPORT', createdAt: sentryTime(event.timestamp) ?? now,
      message: text(str(feedback.message) ?? '(feedback without a message)', 'message'), url: text(page, 'url'),
    }],
  }
}

/** The legacy `user_report` item ({event_id, name, email, comments}): a USER_REPORT. */
export function mapUserReport(report: Json, envelopeHeader: Json, now: number): MappedEvent {
  const related = sentryId(report.event_id)
  const eventId = hexId(['user_report', related, report.comments])
  const labels = labelsOf({}, envelopeHeader)
  return {
    ...labels, eventId,
    events: [{ id: eventId, type: 'USER_REPORT', createdAt: now, message: text(str(report.comments) ?? '(report without comments)', 'message') }],
  }
}

function messageOf(event: Json): string | undefined {
  const message = event.message
  if (typeof message === 'string') return message || undefined
  const logentry = obj(event.logentry) ?? obj(message)
  return str(logentry?.formatted) ?? str(logentry?.message)
}

/** Sentry's `fingerprint` (a list of strings) as one grouping key; Sentry's `{{ default }}` alone means its default grouping. */
function fingerprintOf(value: unknown): string | undefined {
  if (!Array.isArray(value)) return undefined
  const parts = value.filter((p): p is string => typeof p === 'string')
  if (parts.length === 0 || (parts.length === 1 && parts[0] === '{{ default }}')) return undefined
  return parts.join(' ').slice(0, TEXT_LIMITS.fingerprint)
}

/**
 * Sentry's structured frames (oldest call first) written as the V8 stack text Sessionwatch stores for its own SDK
 * (newest first, `at fn (file:line:col)`), so grouping, source maps and the stack view treat both alike: the
 * frames round-trip exactly, no guessing at a format.
 */
function stackOf(message: string, stacktrace: Json | undefined): string | undefined {
  const frames = list(stacktrace?.frames).map(obj).filter((f): f is Json => f !== undefined)
  if (frames.length === 0) return undefined
  const lines = frames.reverse().map((frame) => {
    const file = str(frame.abs_path) ?? str(frame.filename) ?? '<anonymous>'
    const line = num(frame.lineno)
    const column = num(frame.colno)
    const where = line === undefined ? file : column === undefined ? `${file}:${line}` : `${file}:${line}:${column}`
    const fn = str(frame.function)
    return fn && fn !== '?' ? `    at ${fn} (${where})` : `    at ${where}`
  })
  return text([message.split('\n')[0] ?? message, ...lines].join('\n'), 'stack')
}

/**
 * Breadcrumbs as events, each with an id from its content: Sentry sends the last 100 with every event, so the
 * same crumb arrives again with the next error and is stored once.
 * - `ui.click` → CLICK, `ui.input` → INPUT (the element's path as message);
 * - `navigation` → NAVIGATION to `data.to`;
 * - `fetch`/`xhr` (type `http`) with a status ≥ 400, or none (the request failed) → HTTP_ERROR;
 * - `console` at level error → CONSOLE_ERROR.
 * Others (successful requests, console logs, `sentry.event`) add nothing a triager needs and are left out;
 * requests to this server's own ingest or to Sentry's are not the page's.
 */
function breadcrumbsOf(event: Json, base: string | undefined, isOwnUrl: (url: string) => boolean): IngestEvent[] {
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
    } else if (crumb.type === 'http' || category === 'fetch' || category === 'xhr') {
      const url = optional(str(data.url), base)
      const status = num(data.status_code)
      if (!url || isOwnUrl(url) || (status !== undefined && status < 400)) continue
      const method = str(data.method)
      const duration = num(data.duration) ?? (num(data.end_timestamp) !== undefined && num(data.start_timestamp) !== undefined
        ? ((data.end_timestamp as number) - (data.start_timestamp as number)) * 1000 : undefined)
      events.push({
        id, type: 'HTTP_ERROR', createdAt: at, url: text(url, 'url'),
        method: method !== undefined && /^[A-Za-z]{1,16}$/.test(method) ? method : 'GET',
        statusCode: status !== undefined && Number.isInteger(status) && status <= 599 ? status : null,
        ...(duration !== undefined && duration >= 0 && duration <= MAX_DURATION_MS && { durationMs: duration }),
        message: status === undefined ? text(message ?? 'The request failed (network error)', 'message') : null,
      })
    } else if (category === 'console' && ERROR_LEVELS.has(str(crumb.level) ?? '')) {
      const args = Array.isArray(data.arguments) ? data.arguments.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ') : undefined
      events.push({ id, type: 'CONSOLE_ERROR', createdAt: at, message: text(message ?? args ?? 'console.error', 'message') })
    }
  }
  return events
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
