import { promisify } from 'node:util'
import { gzip as gzipCb } from 'node:zlib'
import { scrub } from '../../common/scrub.ts'
import type { Db } from '../database.ts'
import { invalidBody, notFound } from '../errors.ts'
import { CorruptData, inflate, InflateBudget } from '../http/inflate.ts'
import { publicProject, type Project, type ProjectContext } from '../projects/service.ts'
import { toIso } from '../util/time.ts'
import { MAX_CHUNK_JSON_BYTES, MAX_REQUEST_INFLATED_BYTES } from '../contract/limits.ts'
import type { RecordingMode, RecordingUpload } from '../contract/index.ts'
import * as visits from '../visits/index.ts'
import type { ChunkRecord } from '../visits/index.ts'
import type { Readable } from 'node:stream'
import { openChunk, type RecordingStores } from './store/index.ts'

const gzip = promisify(gzipCb)

/** gzip's first byte, and `[` with the white space JSON allows before it: what tells compressed from plain data. */
const GZIP_MAGIC = 0x1f
const JSON_ARRAY = /^[ \t\r\n]*\[/

/** rrweb event types: a full snapshot opens a replayable chunk, an incremental one changes what came before. */
const FULL_SNAPSHOT = 2
const INCREMENTAL_SNAPSHOT = 3

/** A chunk as a batch carries it (base64 text) or as POST /ingest/v1/recording carries it (the bytes themselves). */
export type ChunkUpload = Omit<RecordingUpload, 'data'> & { data: RecordingUpload['data'] | Buffer<ArrayBuffer> } | CheckedChunk

/** A chunk inflated, parsed and compressed already (a Sentry replay segment): stored as it is, not read again. */
export interface CheckedChunk { id: string; gzip: NonNullable<ChunkRecord['data']>; summary: Summary; mode?: RecordingMode }

export interface RecordingLimits {
  maxChunkBytes: number
  maxSessionBytes: number
}

/** What storing recordings takes: the configured limits, and the stores chunks are written to and read from. */
export interface Recordings extends RecordingLimits {
  readonly stores: RecordingStores
}

/**
 * Checks uploaded chunks and turns them into rows. The data must be a JSON array of rrweb events (objects with a
 * numeric type and timestamp), gzip-compressed or — as a closing page sends its last events, so as not to compress
 * them on the spot — plain, which is compressed here: anything else answers 400, so readers only ever get replayable
 * gzip data. A chunk over the per-chunk limit as sent is not even inflated: it is kept as dropped. One that inflates
 * beyond MAX_CHUNK_JSON_BYTES, the ratio bound, or with the others beyond the request's `budget` is a decompression
 * bomb: 413, and nothing of the request is stored. Chunks are inflated one after another, so a request holds one
 * inflation at a time. Times are corrected exactly like event times, so the replay and the events line up.
 */
export async function decodeChunks(
  uploads: readonly ChunkUpload[], limits: RecordingLimits, toServerTime: (visitorTime: number) => number, now: number,
  budget = new InflateBudget(MAX_REQUEST_INFLATED_BYTES),
): Promise<ChunkRecord[]> {
  const records: ChunkRecord[] = []
  for (const [i, upload] of uploads.entries()) records.push(await decodeChunk(upload, i, limits, toServerTime, now, budget))
  return records
}

async function decodeChunk(
  upload: ChunkUpload, i: number, limits: RecordingLimits, toServerTime: (visitorTime: number) => number, now: number, budget: InflateBudget,
): Promise<ChunkRecord> {
  const dropped = (reason: string, bytes: number): ChunkRecord => ({
    id: upload.id, started_at: now, ended_at: now, events: 0, full_snapshot: 0, bytes, data: null, dropped: reason,
  })
  let stored: NonNullable<ChunkRecord['data']>
  let summary: Summary
  if ('gzip' in upload) {
    ({ gzip: stored, summary } = upload)
  } else {
    const raw = typeof upload.data !== 'string'
    const data = typeof upload.data === 'string' ? Buffer.from(upload.data, 'base64') : upload.data
    const field = raw ? 'body' : `recording[${i}].data`
    let json: Buffer
    stored = data
    if (data[0] !== GZIP_MAGIC && JSON_ARRAY.test(data.subarray(0, 64).toString('latin1'))) {
      if (data.length > MAX_CHUNK_JSON_BYTES) return dropped('chunk_too_large', data.length)
      json = data
      stored = await gzip(data)
    } else {
      if (data.length > limits.maxChunkBytes) return dropped('chunk_too_large', data.length)
      try {
        json = await inflate(data, 'gzip', { maxBytes: MAX_CHUNK_JSON_BYTES, budget, what: field === 'body' ? 'The chunk' : field })
      } catch (error) {
        if (!(error instanceof CorruptData)) throw error
        throw invalidBody(`${field} must be ${raw ? '' : 'base64 of '}gzip-compressed JSON or a JSON array (it is neither)`, field)
      }
    }
    const parsed = parseChunk(json)
    if (typeof parsed === 'string') throw invalidBody(`${field} ${parsed}`, field)
    summary = parsed.summary
    if (scrubRecording(parsed.events)) stored = await gzip(JSON.stringify(parsed.events))
  }
  if (stored.length > limits.maxChunkBytes) return dropped('chunk_too_large', stored.length)
  return {
    id: upload.id, started_at: toServerTime(summary.first), ended_at: toServerTime(summary.last), events: summary.count,
    full_snapshot: summary.fullSnapshot ? 1 : 0, bytes: stored.length, data: stored, dropped: null,
    ...(upload.mode !== undefined && { mode: upload.mode }),
  }
}

export interface Summary { count: number; first: number; last: number; fullSnapshot: boolean }

/** A chunk's JSON (inflated) parsed once: its events and their counts and bounds, or what is wrong with it. */
export function parseChunk(json: Buffer): { events: unknown[]; summary: Summary } | string {
  let events: unknown
  try {
    events = JSON.parse(json.toString('utf8'))
  } catch {
    return 'must be JSON, plain or gzip-compressed (it is not)'
  }
  if (!Array.isArray(events) || events.length === 0) return 'must be a non-empty JSON array of rrweb events'
  let first = Infinity
  let last = -Infinity
  for (const [k, e] of events.entries()) {
    const { type, timestamp } = (e ?? {}) as { type?: unknown; timestamp?: unknown }
    if (!Number.isInteger(type) || typeof timestamp !== 'number' || !Number.isFinite(timestamp) || timestamp < 0) {
      return `event ${k} is not an rrweb event (an object with an integer type and a timestamp in epoch ms)`
    }
    first = Math.min(first, timestamp)
    last = Math.max(last, timestamp)
  }
  const summary = { count: events.length, first: Math.trunc(first), last: Math.trunc(last), fullSnapshot: opensWithSnapshot(events as { type: number }[]) }
  return { events, summary }
}

/** rrweb's events that carry URLs and messages rather than the DOM: Meta (the page's URL) and Custom (a Sentry replay's breadcrumbs and spans). */
const META = 4
export const CUSTOM = 5

/**
 * Scrubs a recording's URLs and messages in place as events' are (common/scrub.ts): each Meta event's page URL (an
 * OAuth redirect's fragment, a `?token=`) and each Custom event's payload (a Sentry replay's breadcrumbs and request
 * spans, with their URLs and console messages). Returns whether anything changed, so an unchanged chunk is stored as
 * sent. The DOM itself is the recorder's to mask (maskAllInputs, maskAllText, blockSelector): it is not rewritten here.
 */
export function scrubRecording(events: readonly unknown[]): boolean {
  let changed = false
  for (const event of events) {
    const { type, data } = event as { type: number; data?: unknown }
    if (type === META && typeof (data as { href?: unknown } | undefined)?.href === 'string') {
      const meta = data as { href: string }
      const href = scrub(meta.href)
      if (href !== meta.href) {
        meta.href = href
        changed = true
      }
    } else if (type === CUSTOM && data !== null && typeof data === 'object' && 'payload' in data) {
      // Parsed from JSON, the payload is JSON again whole: never undefined, never a function.
      const before = JSON.stringify(data.payload)
      const after = scrub(before)
      if (after !== before) {
        data.payload = JSON.parse(after)
        changed = true
      }
    }
  }
  return changed
}

/**
 * Whether a replay can start at the chunk: a full snapshot comes before any incremental change. Events that change
 * no DOM may precede it — Meta, and in Sentry's segments DomContentLoaded, Load and custom events (its options).
 */
function opensWithSnapshot(events: readonly { type: number }[]): boolean {
  for (const { type } of events) {
    if (type === FULL_SNAPSHOT) return true
    if (type === INCREMENTAL_SNAPSHOT) return false
  }
  return false
}

export interface RecordingView {
  project: Project
  sessionId: string
  recording: { available: boolean; chunks: number; bytes: number; droppedChunks: number; mode: string | null; evicted: boolean; evictedBytes: number }
  chunks: { id: string; startedAt: string; endedAt: string; events: number; bytes: number; fullSnapshot: boolean }[]
}

/** A session's recording: its counters and the list of stored chunks. Unknown, expired and foreign sessions are 404 alike. */
export async function getRecording(db: Db, project: ProjectContext, id: string, now = Date.now()): Promise<RecordingView> {
  const row = await visits.liveSession(db, project, id, now)
  const [chunks, kept] = await Promise.all([visits.listChunks(db, project.id, id), visits.recordingKept(db, project.id, id)])
  return {
    project: publicProject(project),
    sessionId: id,
    recording: {
      available: row.recording_chunks > 0, chunks: row.recording_chunks,
      bytes: row.recording_bytes, droppedChunks: row.recording_dropped,
      mode: kept.recording_mode, evicted: kept.recording_evicted > 0, evictedBytes: kept.recording_evicted,
    },
    chunks: chunks.map((c) => ({
      id: c.id, startedAt: toIso(c.started_at), endedAt: toIso(c.ended_at), events: c.events, bytes: c.bytes,
      fullSnapshot: c.full_snapshot === 1,
    })),
  }
}

/** One chunk's gzip data, as stored, streamed from its store. */
export async function getChunk(
  db: Db, stores: RecordingStores, project: ProjectContext, id: string, chunkId: string, now = Date.now(),
): Promise<Readable> {
  await visits.liveSession(db, project, id, now)
  const source = await visits.chunkSource(db, project.id, id, chunkId)
  if (!source) throw notFound(`Recording chunk "${chunkId}" of session "${id}" not found`)
  const data = await openChunk(stores, source)
  if (!data) {
    throw notFound(`Recording chunk "${chunkId}" of session "${id}" is missing from its recording store: `
      + 'the operator can list such chunks with `sessionwatch storage check`')
  }
  return data
}

/** Inflates stored data for a client that does not accept gzip. */
