import { hash } from 'node:crypto'
import { isIP } from 'node:net'
import { MAX_PAGE_URL_LENGTH, TEXT_LIMITS } from '../contract/limits.ts'
import { MAX_ENVIRONMENT_LENGTH, MAX_META_KEY_LENGTH, MAX_META_VALUE_LENGTH, MAX_RELEASE_LENGTH, MAX_TAGS, MAX_TRAITS, MAX_USER_ID_LENGTH } from '../../common/limits.ts'
import { type IngestEvent, META_KEY_PATTERN, type SdkFrames, type VisitorUser } from '../contract/index.ts'
import { normalizeIp } from '../geo/country.ts'
import { breadcrumbsOf } from './breadcrumbs.ts'
import { errorOf } from './exception.ts'
import { cut, ERROR_LEVELS, type Json, num, obj, objects, sentryTime, str, text } from './values.ts'

/*
 * How a Sentry event becomes Sessionwatch events and visit facts: one pure function per item type, documented
 * rule by rule in docs/sentry.md. Everything here is visitor input: every value is checked for its type and cut
 * to the bounds the ingest schema states, so what comes out is what a valid SDK batch could carry.
 */

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
  /** The end user's address as the event carries it (user.ip_address, else request.env.REMOTE_ADDR): a server SDK's. */
  ip?: string
  /** The Sentry replay this happened in: the visit's key when present. */
  replayId?: string
  /** The SDK was told not to collect the visitor's IP (sdk.settings.infer_ip "never"). */
  noIp?: boolean
}

/** An event of the visit, with the frames a server SDK sent structured. */
export type SentryEvent = IngestEvent & SdkFrames

export interface MappedEvent extends VisitLabels {
  /** The Sentry event id (32 lower-case hex digits): it names the stored events, so a resent event is stored once. */
  eventId: string
  events: SentryEvent[]
}

const HEX_ID = /^[0-9a-f]{32}$/

/** A Sentry id (32 hex digits, or a UUID with dashes) in its canonical form, or null. */
export function sentryId(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const id = value.replace(/-/g, '').toLowerCase()
  return HEX_ID.test(id) ? id : null
}

/** An event id, 32 hex digits like Sentry's, from content: for an event that names none, so a resend still has the same. */
export const hexId = (content: unknown): string => hash('sha256', JSON.stringify(content), 'hex').slice(0, 32)

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
  const userAgent = headerOf(request?.headers, 'user-agent')
  if (userAgent) labels.userAgent = userAgent
  const ip = endUserIp(obj(event.user), request)
  if (ip !== undefined) labels.ip = ip
  const contexts = obj(event.contexts)
  const replayId = sentryId(obj(contexts?.replay)?.replay_id) ?? sentryId(obj(contexts?.feedback)?.replay_id)
    ?? sentryId(obj(event.tags)?.replayId) ?? sentryId(event.replay_id) ?? sentryId(obj(envelopeHeader.trace)?.replay_id)
  if (replayId) labels.replayId = replayId
  if (obj(obj(event.sdk)?.settings)?.infer_ip === 'never') labels.noIp = true
  return labels
}

/** A request header, by its lower-case name: Sentry's `headers` is an object or a list of [name, value] pairs. */
function headerOf(headers: unknown, name: string): string | undefined {
  const pairs = Array.isArray(headers) ? headers : Object.entries(obj(headers) ?? {})
  for (const pair of pairs) {
    if (Array.isArray(pair) && typeof pair[0] === 'string' && pair[0].toLowerCase() === name) return str(pair[1])
  }
  return undefined
}

/**
 * The end user's address a server SDK reports: `user.ip_address` (`{{auto}}`, a browser SDK's, means the connection's,
 * so none here), else the request's `env.REMOTE_ADDR`. Undefined when neither is an IP address.
 */
function endUserIp(user: Json | undefined, request: Json | undefined): string | undefined {
  const address = str(user?.ip_address)
  const sent = address !== undefined ? (address === '{{auto}}' ? undefined : address) : str(obj(request?.env)?.REMOTE_ADDR)
  const ip = normalizeIp(sent?.trim())
  return ip !== null && isIP(ip) !== 0 ? ip : undefined
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

/**
 * An `event` item: one ERROR of its exception and the chain of its causes (exception.ts); or a MESSAGE when it has
 * none, or only the synthetic one of a message sent with a stack, and its level is below error (ERROR at error or fatal);
 * its breadcrumbs as the visit's earlier clicks, inputs, navigations, failed requests and console errors.
 * `ingestUrl` tells this server's own URLs (and Sentry's), whose requests are not the page's.
 */
export function mapSentryEvent(event: Json, envelopeHeader: Json, now: number, isOwnUrl: (url: string) => boolean): MappedEvent {
  const eventId = sentryId(event.event_id) ?? sentryId(envelopeHeader.event_id) ?? hexId(event)
  const at = sentryTime(event.timestamp) ?? now
  const labels = labelsOf(event, envelopeHeader)
  const base = labels.page
  const events: SentryEvent[] = breadcrumbsOf(event, base, isOwnUrl)
  const fingerprint = fingerprintOf(event.fingerprint)
  const level = str(event.level) ?? 'error'
  const exceptions = objects(event.exception)
  // captureMessage with attachStacktrace sends its message as an exception marked synthetic: still a message.
  const synthetic = exceptions.length > 0 && exceptions.every((e) => obj(e.mechanism)?.synthetic === true)
  const common = { id: eventId, createdAt: at, url: text(base, 'url'), ...(fingerprint !== undefined && { fingerprint }) }
  if (exceptions.length > 0 && !(synthetic && !ERROR_LEVELS.has(level))) {
    events.push({ ...common, type: 'ERROR', ...errorOf(exceptions, str(event.platform) !== 'javascript') })
  } else {
    const message = messageOf(event) ?? str(exceptions[0]?.value)
    events.push({ ...common, type: ERROR_LEVELS.has(level) ? 'ERROR' : 'MESSAGE', message: text(message ?? `(${level} event without a message)`, 'message') })
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

