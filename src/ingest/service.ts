import { MAX_USER_AGENT_LENGTH } from '../contract/limits.ts'
import { scrub } from '../../common/scrub.ts'
import type { Db } from '../database.ts'
import { invalidBody } from '../errors.ts'
import { normalizeEvent } from '../events/normalize.ts'
import { cleanText } from '../events/text.ts'
import type { EventRecord, IngestBody, IngestEvent, SdkFrames } from '../contract/index.ts'
import { retentionCutoff, type ProjectContext } from '../projects/service.ts'
import { decodeChunks, type ChunkUpload, type Recordings } from '../recording/service.ts'
import { discardChunks, storeChunks } from '../recording/store/index.ts'
import { parseInstant } from '../util/time.ts'
import { extractUtm } from './enrich.ts'

/**
 * A batch as ingest stores it: the request body, whose recording chunks may also be raw bytes (POST /ingest/v1/recording),
 * and whose events may carry a server Sentry SDK's frames (src/sentry/).
 */
export type IngestRequest = Omit<IngestBody, 'recording' | 'events'> & { events: readonly (IngestEvent & SdkFrames)[]; recording?: readonly ChunkUpload[] }
import { type AppendResult, cleanFacts, liveSessionId, userAgentFamilies, type Writer } from '../visits/index.ts'
import { groupEvents, type FrameMapper } from '../issues/index.ts'
import type { CountryLookup } from '../geo/country.ts'
import { storedIp, type IpStorage } from '../privacy/ip.ts'

/** What the server knows of the visitor, independent of the body. */
export interface Visitor {
  /** As the project stores it (its IP storage). */
  ip: string | null
  country: string | null
  userAgent: string | null
}

/**
 * The visitor of a request from its address (normalizeIp'd) and User-Agent. The country is looked up from the
 * full address before the project's IP storage cuts or drops it, so truncating costs no country.
 */
export function visitorOf(ip: string | null, userAgent: string | null, geo: CountryLookup, storage: IpStorage): Visitor {
  return { ip: storedIp(ip, storage), country: geo.country(ip), userAgent }
}

/** Events stamped later than this past arrival are from a broken clock; they are pinned to arrival. */
const FUTURE_TOLERANCE_MS = 60_000

/** The ingest answer: an empty batch may name no session, since it creates none. */
export type IngestResult = Omit<AppendResult, 'sessionId'> & { sessionId: string | null }

/**
 * Stores one SDK batch. The whole batch commits in one transaction before this resolves,
 * so a 2xx answer means every event is on disk. A batch with no events and no recording stores
 * nothing: it neither opens a session nor moves a session's lastSeenAt (the time of its latest
 * event, which an empty batch does not have); it answers with the live session, if any.
 */
export async function ingestBatch(
  db: Db, writer: Writer, project: ProjectContext, body: IngestRequest, visitor: Visitor, recordings: Recordings, now: number,
  mapFrames?: FrameMapper,
): Promise<IngestResult> {
  const skew = clockSkew(body.sentAt, now)
  const events = await records(body, skew, now, project.maskFields)
  const decoded = await decodeChunks(body.recording ?? [], recordings, (t) => serverTime(t, skew, now), now)
  if (events.length === 0 && decoded.length === 0) {
    return { sessionId: await liveSessionId(db, project.id, body.sessionKey, retentionCutoff(project, now)), accepted: 0, duplicates: 0 }
  }
  const chunks = await storeChunks(recordings.stores, project.id, decoded)
  const recorded = chunks.filter((c) => c.dropped === null)
  const landing = body.events.find((e) => e.type === 'NAVIGATION' && e.url)?.url ?? body.page
  const userAgent = visitor.userAgent === null ? null : cleanText(visitor.userAgent.slice(0, MAX_USER_AGENT_LENGTH))
  const { browser, os } = userAgent === null ? { browser: null, os: null } : userAgentFamilies(userAgent)
  // Who the page says the visitor is: NUL characters cleaned as in events (the schema bounds the rest).
  const labels = cleanFacts({ user: body.user ? { id: body.user.id, traits: body.user.traits ?? null } : null, tags: body.tags ?? null, release: body.release ?? null, environment: body.environment ?? null })
  const seed = {
    ...labels,
    sessionKey: body.sessionKey,
    ip: visitor.ip,
    country: visitor.country,
    userAgent,
    utm: extractUtm(landing),
    // The landing page's URL may carry a token (an OAuth redirect's fragment, a magic link): scrubbed like event URLs.
    entryUrl: landing === undefined ? null : cleanText(scrub(landing, project.maskFields)),
    browser,
    os,
    // Recorded activity keeps a session alive and can open it, like events do.
    ...(recorded.length > 0 && {
      startedAt: Math.min(...recorded.map((c) => c.started_at)),
      lastSeenAt: Math.max(...recorded.map((c) => c.ended_at)),
    }),
  }
  return writer.submit({
    projectId: project.id, seed, events, groups: await groupEvents(events, mapFrames), cutoff: retentionCutoff(project, now), now,
    ...(chunks.length > 0 && { recording: { chunks, maxSessionBytes: recordings.maxSessionBytes } }),
  }).catch(async (error: unknown) => {
    await discardChunks(recordings.stores, chunks)
    throw error
  })
}

/**
 * Characters of event text scrubbed and cut between two turns of the event loop. The scrub pass is linear, but a
 * whole 1 MiB batch of text shaped to match its patterns every few characters took 45–90 ms to normalize; in slices
 * of this size such a batch held the loop ≤ 13 ms at a time, and an ordinary batch (short messages) takes one slice.
 */
const NORMALIZE_SLICE_CHARS = 65_536

/** The batch's events as stored, normalized a slice at a time (NORMALIZE_SLICE_CHARS). */
async function records(body: IngestRequest, skew: number, now: number, maskFields: readonly string[]): Promise<EventRecord[]> {
  const events: EventRecord[] = []
  let chars = 0
  for (const [i, e] of body.events.entries()) {
    chars += (e.url?.length ?? 0) + (e.message?.length ?? 0) + (e.stack?.length ?? 0) + (e.reqBody?.length ?? 0) + (e.resBody?.length ?? 0)
    if (chars > NORMALIZE_SLICE_CHARS) {
      chars = 0
      await new Promise(setImmediate)
    }
    events.push(toRecord(e, `${body.batchId}-${i}`, i, skew, now, maskFields))
  }
  return events
}

/** A visitor-clock time on the server clock; a time further ahead than any real skew is pinned to arrival. */
function serverTime(visitorTime: number, skew: number, now: number): number {
  return Math.max(0, visitorTime + skew > now + FUTURE_TOLERANCE_MS ? now : visitorTime + skew)
}

/** Milliseconds to add to visitor-clock times: how far the visitor clock lags the server's. */
function clockSkew(sentAt: IngestBody['sentAt'], now: number): number {
  if (sentAt === undefined) return 0
  const sent = toEpoch(sentAt)
  if (sent === null) throw invalidBody('sentAt must be epoch milliseconds or an ISO 8601 date-time', 'sentAt')
  return now - sent
}

function toEpoch(value: number | string): number | null {
  return typeof value === 'number' ? (Number.isFinite(value) ? Math.trunc(value) : null) : parseInstant(value)
}

function toRecord(e: IngestEvent & SdkFrames, defaultId: string, index: number, skew: number, now: number, maskFields: readonly string[]): EventRecord {
  let createdAt = now
  if (e.createdAt !== undefined) {
    const t = toEpoch(e.createdAt)
    if (t === null) {
      throw invalidBody(`events[${index}].createdAt must be epoch milliseconds or an ISO 8601 date-time with a zone`,
        `events[${index}].createdAt`)
    }
    createdAt = serverTime(t, skew, now)
  }
  return normalizeEvent({ ...e, id: e.id ?? defaultId, createdAt }, maskFields)
}
