import { LRUCache } from 'lru-cache'
import { MAX_TAGS } from '../../common/limits.ts'
import { MAX_USER_AGENT_LENGTH } from '../contract/limits.ts'
import { SENTRY_MAX_EVENT_BYTES, SENTRY_VISIT_IDLE_MS, SENTRY_VISIT_SCAN } from './limits.ts'
import type { Db } from '../database.ts'
import { AppError } from '../errors.ts'
import { cleanText } from '../events/text.ts'
import type { CountryLookup } from '../geo/country.ts'
import type { FrameMapper } from '../issues/index.ts'
import type { InflateBudget } from '../http/inflate.ts'
import type { IngestBody, IngestEvent } from '../contract/index.ts'
import { ingestBatch, visitorOf, type IngestRequest, type Visitor } from '../ingest/service.ts'
import type { IpStorage } from '../privacy/ip.ts'
import { ipStorageOf, retentionCutoff, type ProjectContext } from '../projects/service.ts'
import { countSentryUnits } from '../releases/index.ts'
import type { CheckedChunk, Recordings } from '../recording/service.ts'
import { recentSessionKey, type Writer } from '../visits/index.ts'
import { jsonObject, type Envelope, type EnvelopeItem } from './envelope.ts'
import { labelsOf, mapFeedback, mapSentryEvent, mapUserReport, sentryId, type MappedEvent, type VisitLabels } from './event.ts'
import { sentryTime } from './values.ts'
import { recordingChunk } from './replay.ts'
import { sessionUnits } from './sessions.ts'
import { mapPerformance } from './vitals.ts'

/** What envelope ingest needs of the service. */
export interface SentryDeps {
  db: Db
  writer: Writer
  geo: CountryLookup
  recording: Recordings
  ipStorage: IpStorage
  mapFrames?: FrameMapper
  /** Whether a request URL is this server's own ingest (or Sentry's): such requests are not the page's. */
  isOwnUrl: (url: string) => boolean
}

/** The request an envelope came in. */
export interface SentryRequest {
  ip: string | null
  userAgent: string | null
  /** What the request may still inflate (its body's inflation took its share first). */
  budget: InflateBudget
}

/** The answer: the event id Sentry's SDKs expect, and what was kept and left out, by item type. */
export interface EnvelopeResult {
  id?: string
  stored: Record<string, number>
  dropped: Record<string, number>
}

/** Item types a project's daily event quota counts, one each: what becomes an event of a visit (a replay is a recording). */
const QUOTA_ITEMS = new Set(['event', 'feedback', 'user_report'])

/** The events an envelope counts against its project's daily quota. */
export const quotaEvents = (envelope: Envelope): number => envelope.items.filter((item) => QUOTA_ITEMS.has(item.type)).length

/** Item types whose payload is one JSON event, bounded by SENTRY_MAX_EVENT_BYTES. */
const EVENT_ITEMS = new Set(['event', 'feedback', 'user_report', 'replay_event'])

/**
 * Stores what an envelope carries that Sessionwatch keeps (docs/sentry.md): events, feedback and user reports as
 * events of a visit, replay segments as the visit's recording, the web vitals of transactions and spans as WEB_VITAL
 * events, sessions in release health; every other item (client reports, other transactions and spans, logs, profiles,
 * attachments, unknown types) is counted and dropped. The whole envelope is
 * read and checked before anything is written — replay segments inflated and parsed too — so a 400 or a 413 (a
 * decompression bomb among its segments) stores nothing; each stored item is then one durable write, with ids from
 * the Sentry event id, so a resent envelope stores nothing twice.
 */
export async function ingestEnvelope(
  deps: SentryDeps, project: ProjectContext, envelope: Envelope, request: SentryRequest, now: number,
): Promise<EnvelopeResult> {
  const header = envelope.header
  const result: EnvelopeResult = { stored: {}, dropped: {} }
  const count = (bucket: Record<string, number>, type: string) => { bucket[type] = (bucket[type] ?? 0) + 1 }
  const sentAt = sentryTime(header.sent_at)
  const parsed = envelope.items.map((item, i) => ({ item, json: EVENT_ITEMS.has(item.type) ? eventJson(item, i) : null }))
  const replayEvent = parsed.find((p) => p.item.type === 'replay_event')?.json ?? null
  const segments = new Map<EnvelopeItem, Segment | null>()
  for (const { item } of parsed) {
    if (item.type === 'replay_recording') segments.set(item, await readSegment(deps, item, replayEvent ?? {}, header, request.budget))
  }

  for (const { item, json } of parsed) {
    let mapped: MappedEvent | null = null
    if (item.type === 'event' && json) {
      mapped = json.type === 'feedback' ? mapFeedback(json, header, now) : mapSentryEvent(json, header, now, deps.isOwnUrl)
    } else if (item.type === 'feedback' && json) {
      mapped = mapFeedback(json, header, now)
    } else if (item.type === 'user_report' && json) {
      mapped = mapUserReport(json, header, now)
    } else if (item.type === 'transaction' || item.type === 'span') {
      mapped = mapPerformance(item, header, now, project.id)
    } else if (item.type === 'replay_recording') {
      const segment = segments.get(item) ?? null
      const stored = segment !== null && await storeSegment(deps, project, segment, request, sentAt, now)
      count(stored ? result.stored : result.dropped, item.type)
      continue
    } else if (item.type === 'session' || item.type === 'sessions') {
      // Release health (src/releases): counted once however often the item is sent; one without a release is dropped.
      const units = sessionUnits(item, now, header)
      if (units.length > 0) await countSentryUnits(deps.db, project.id, units, retentionCutoff(project, now))
      count(units.length > 0 ? result.stored : result.dropped, item.type)
      continue
    } else if (item.type === 'replay_event') {
      // Stored with its recording (above): an event without one says nothing the recording's visit will not.
      if (!parsed.some((p) => p.item.type === 'replay_recording')) count(result.dropped, item.type)
      continue
    }
    if (mapped === null) {
      count(result.dropped, item.type)
      continue
    }
    const visitor = visitorFor(deps, project, mapped, request)
    const who = whoOf(mapped, visitor)
    const { sessionKey, tags } = await visitOf(deps.db, project.id, mapped, who, mapped.eventId, now)
    const body: IngestRequest = {
      ...batchOf({ ...mapped, ...(tags && { tags }) }), sessionKey, batchId: `sentry-${mapped.eventId}`, events: mapped.events, ...(sentAt !== undefined && { sentAt }),
    }
    await ingestBatch(deps.db, deps.writer, project, body, visitor, deps.recording, now, deps.mapFrames)
    // A span container names no event: its id is made here, and no SDK waits for it.
    if (item.type !== 'span') result.id ??= mapped.eventId
    count(result.stored, item.type)
  }
  result.id ??= sentryId(header.event_id) ?? undefined
  return result
}

/** An event-like item's JSON object; an item over the event limit is refused (413), one that is not JSON too (400). */
function eventJson(item: EnvelopeItem, index: number): Record<string, unknown> {
  if (item.payload.length > SENTRY_MAX_EVENT_BYTES) {
    throw new AppError(413, 'payload_too_large',
      `Envelope item ${index} (${item.type}) is ${item.payload.length} bytes; an event item may be at most ${SENTRY_MAX_EVENT_BYTES} bytes`)
  }
  const json = jsonObject(item.payload)
  if (json === null) throw new AppError(400, 'invalid_envelope', `Envelope item ${index} (${item.type}) must be a JSON object`)
  return json
}

/** A replay segment read and checked, with its replay_event's facts. */
interface Segment { replayId: string; labels: VisitLabels; page: string | undefined; chunk: CheckedChunk; events: IngestEvent[] }

/** A replay segment inflated and parsed (once), or null when it is dropped. A decompression bomb throws 413. */
async function readSegment(
  deps: SentryDeps, item: EnvelopeItem, replayEvent: Record<string, unknown>, header: Record<string, unknown>, budget: InflateBudget,
): Promise<Segment | null> {
  const replayId = sentryId(replayEvent.replay_id) ?? sentryId(header.event_id)
  if (replayId === null) return null
  const labels: VisitLabels = { ...labelsOf(replayEvent, header), replayId }
  const urls = Array.isArray(replayEvent.urls) ? replayEvent.urls.filter((u): u is string => typeof u === 'string') : []
  const page = labels.page ?? urls[0]
  const read = await recordingChunk(replayId, item.payload, replayEvent.segment_id, budget, page, deps.isOwnUrl)
  if ('dropped' in read) return null
  // replaysOnErrorSampleRate: the SDK kept the replay in a buffer until an error, as our SDK's record: 'onError' does.
  if (replayEvent.replay_type === 'buffer') read.chunk.mode = 'onError'
  return { replayId, labels, page, ...read }
}

/** A replay segment as a recording chunk of the replay's visit. False when dropped. */
async function storeSegment(
  deps: SentryDeps, project: ProjectContext, segment: Segment, request: SentryRequest, sentAt: number | undefined, now: number,
): Promise<boolean> {
  const { replayId, labels, page, chunk, events } = segment
  const visitor = visitorFor(deps, project, labels, request)
  const body: IngestRequest = {
    ...batchOf({ ...labels, ...(page !== undefined && { page }) }), sessionKey: replayKey(replayId), batchId: chunk.id, events, recording: [chunk],
    ...(sentAt !== undefined && { sentAt }),
  }
  const stored = await ingestBatch(deps.db, deps.writer, project, body, visitor, deps.recording, now, deps.mapFrames)
  return (stored.recording?.accepted ?? 0) + (stored.recording?.duplicates ?? 0) > 0
}

/** The visit facts of a batch, from the labels of an item. */
function batchOf(labels: VisitLabels): Pick<IngestBody, 'user' | 'tags' | 'release' | 'environment' | 'page'> {
  return {
    ...(labels.user && { user: labels.user }), ...(labels.tags && { tags: labels.tags }),
    ...(labels.release !== undefined && { release: labels.release }), ...(labels.environment !== undefined && { environment: labels.environment }),
    ...(labels.page !== undefined && { page: labels.page }),
  }
}

/**
 * The visitor: the end user's address a server SDK reports, else the connection's (none when the SDK says not to infer
 * it); the event's User-Agent (the end user's browser), else the request's.
 */
function visitorFor(deps: SentryDeps, project: ProjectContext, labels: VisitLabels, request: SentryRequest): Visitor {
  const ip = labels.noIp === true ? null : labels.ip ?? request.ip
  return visitorOf(ip, labels.userAgent ?? request.userAgent, deps.geo, ipStorageOf(project, deps.ipStorage))
}

const replayKey = (replayId: string): string => `sentry-r-${replayId}`

/** Who an event without a replay is, for finding its visit: its user, else its address and User-Agent; null when neither is known. */
type Who = { userId: string } | { ip: string; userAgent: string | null }

function whoOf(labels: VisitLabels, visitor: Visitor): Who | null {
  if (labels.replayId !== undefined) return null
  if (labels.user) return { userId: cleanText(labels.user.id) }
  if (visitor.ip === null) return null
  return { ip: visitor.ip, userAgent: visitor.userAgent === null ? null : cleanText(visitor.userAgent.slice(0, MAX_USER_AGENT_LENGTH)) }
}

/**
 * The visit this process last put an event of a user (or an address) in, when, and its tags. Errors come in bursts —
 * one bug fires in every tab, the SDK sends them concurrently — and the database cannot answer for the visit until the
 * first of them is written: remembered here as soon as it is chosen (and the lookup in flight shared), they all join
 * it. Bounded; a visit found here is as right as one found in the database (active within the idle time), and one it
 * does not know is looked up there.
 */
interface RecentVisit { sessionKey: string; at: number; tags: Tags | undefined }
type Tags = Record<string, string>
const recentVisits = new LRUCache<string, RecentVisit>({ max: 20_000 })
const lookups = new Map<string, Promise<RecentVisit>>()
const recentKey = (projectId: string, who: Who): string =>
  ('userId' in who ? [projectId, 'u', who.userId] : [projectId, 'a', who.ip, who.userAgent ?? '']).join('\u0000')

/**
 * Which visit an event belongs to (docs/sentry.md), and the tags the event gives it: its replay's, when it names one;
 * else, for an identified user, the user's latest visit active within SENTRY_VISIT_IDLE_MS; for an anonymous one, the
 * latest such visit of its IP address and User-Agent that has no user (among the SENTRY_VISIT_SCAN most recently
 * active); else a new visit of its own. Another user's visit is never joined, nor, by an event that names no user (a
 * server's script), any user's. A visit joined keeps its tags, the event's added (mergeTags): a visit's tags are set
 * by the latest batch, and a server SDK's event carries only its own scope's. A resent event finds the visit it was
 * stored in the first time, where its ids make it a duplicate.
 */
async function visitOf(db: Db, projectId: string, labels: VisitLabels, who: Who | null, eventId: string, now: number): Promise<{ sessionKey: string; tags?: Tags }> {
  if (labels.replayId !== undefined) return { sessionKey: replayKey(labels.replayId), ...(labels.tags && { tags: labels.tags }) }
  if (who === null) return { sessionKey: `sentry-e-${eventId}`, ...(labels.tags && { tags: labels.tags }) }
  const since = now - SENTRY_VISIT_IDLE_MS
  const key = recentKey(projectId, who)
  let visit = recentVisits.get(key)
  if (visit !== undefined && visit.at >= since) {
    visit.at = Math.max(visit.at, now)
  } else {
    let lookup = lookups.get(key)
    if (lookup === undefined) {
      lookup = recentSessionKey(db, projectId, who, since, SENTRY_VISIT_SCAN).then((found) => {
        const fresh: RecentVisit = found === null
          ? { sessionKey: `sentry-e-${eventId}`, at: now, tags: undefined }
          : { sessionKey: found.sessionKey, at: now, tags: found.tags ?? undefined }
        recentVisits.set(key, fresh)
        return fresh
      }).finally(() => { lookups.delete(key) })
      lookups.set(key, lookup)
    }
    visit = await lookup
  }
  visit.tags = mergeTags(visit.tags, labels.tags)
  return { sessionKey: visit.sessionKey, ...(visit.tags && { tags: visit.tags }) }
}

/** The visit's tags with the event's: a key the event sends takes its value; new keys join while there are fewer than MAX_TAGS. */
function mergeTags(visit: Tags | undefined, event: Tags | undefined): Tags | undefined {
  if (visit === undefined || event === undefined) return event ?? visit
  const merged = { ...visit }
  let n = Object.keys(merged).length
  for (const [key, value] of Object.entries(event)) {
    if (key in merged) merged[key] = value
    else if (n < MAX_TAGS) {
      merged[key] = value
      n++
    }
  }
  return merged
}
