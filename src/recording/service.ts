import { promisify } from 'node:util'
import { gunzip as gunzipCb, gzip as gzipCb } from 'node:zlib'
import type { Db } from '../db/database.ts'
import { invalidBody, notFound } from '../errors.ts'
import { publicProject, type Project, type ProjectContext } from '../projects/service.ts'
import { toIso } from '../shared/time.ts'
import { MAX_CHUNK_JSON_BYTES } from '../../common/limits.ts'
import type { RecordingUpload } from './schema.ts'
import * as store from '../visits/read.ts'
import type { ChunkRecord } from '../visits/write.ts'

const gunzip = promisify(gunzipCb)
const gzip = promisify(gzipCb)

/** gzip's first byte, and `[` with the white space JSON allows before it: what tells compressed from plain data. */
const GZIP_MAGIC = 0x1f
const JSON_ARRAY = /^[ \t\r\n]*\[/

/** rrweb event types: a full snapshot opens a replayable chunk, an incremental one changes what came before. */
const FULL_SNAPSHOT = 2
const INCREMENTAL_SNAPSHOT = 3

/** A chunk as a batch carries it (base64 text) or as POST /ingest/v1/recording carries it (the bytes themselves). */
export interface ChunkUpload { id: RecordingUpload['id']; data: RecordingUpload['data'] | Buffer<ArrayBuffer> }

export interface RecordingLimits {
  maxChunkBytes: number
  maxSessionBytes: number
}

/**
 * Checks uploaded chunks and turns them into rows. The data must be a JSON array of rrweb events (objects with a
 * numeric type and timestamp), gzip-compressed or — as a closing page sends its last events, so as not to compress
 * them on the spot — plain, which is compressed here: anything else answers 400, so readers only ever get replayable
 * gzip data. A chunk over the per-chunk limit is not even inflated: it is kept as dropped. Times are corrected exactly
 * like event times, so the replay and the events line up.
 */
export async function decodeChunks(
  uploads: readonly ChunkUpload[], limits: RecordingLimits, toServerTime: (visitorTime: number) => number, now: number,
): Promise<ChunkRecord[]> {
  return Promise.all(uploads.map(async (upload, i) => {
    const raw = typeof upload.data !== 'string'
    const data = typeof upload.data === 'string' ? Buffer.from(upload.data, 'base64') : upload.data
    const dropped = (reason: string, bytes = data.length): ChunkRecord => ({
      id: upload.id, started_at: now, ended_at: now, events: 0, full_snapshot: 0, bytes, data: null, dropped: reason,
    })
    const field = raw ? 'body' : `recording[${i}].data`
    let json: Buffer
    let stored = data
    if (data[0] !== GZIP_MAGIC && JSON_ARRAY.test(data.subarray(0, 64).toString('latin1'))) {
      if (data.length > MAX_CHUNK_JSON_BYTES) return dropped('chunk_too_large')
      json = data
      stored = await gzip(data)
    } else {
      if (data.length > limits.maxChunkBytes) return dropped('chunk_too_large')
      try {
        json = await gunzip(data, { maxOutputLength: MAX_CHUNK_JSON_BYTES })
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return dropped('chunk_too_large')
        throw invalidBody(`${field} must be ${raw ? '' : 'base64 of '}gzip-compressed JSON or a JSON array (it is neither)`, field)
      }
    }
    if (stored.length > limits.maxChunkBytes) return dropped('chunk_too_large', stored.length)
    const summary = summarize(json)
    if (typeof summary === 'string') throw invalidBody(`${field} ${summary}`, field)
    return {
      id: upload.id, started_at: toServerTime(summary.first), ended_at: toServerTime(summary.last), events: summary.count,
      full_snapshot: summary.fullSnapshot ? 1 : 0, bytes: stored.length, data: stored, dropped: null,
    }
  }))
}

interface Summary { count: number; first: number; last: number; fullSnapshot: boolean }

/** Counts and bounds of a chunk's JSON (inflated), or what is wrong with it. */
export function summarize(json: Buffer): Summary | string {
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
  return { count: events.length, first: Math.trunc(first), last: Math.trunc(last), fullSnapshot: opensWithSnapshot(events as { type: number }[]) }
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
  recording: { available: boolean; chunks: number; bytes: number; droppedChunks: number }
  chunks: { id: string; startedAt: string; endedAt: string; events: number; bytes: number; fullSnapshot: boolean }[]
}

/** A session's recording: its counters and the list of stored chunks. Unknown, expired and foreign sessions are 404 alike. */
export async function getRecording(db: Db, project: ProjectContext, id: string, now = Date.now()): Promise<RecordingView> {
  const row = await store.liveSession(db, project, id, now)
  const chunks = await store.listChunks(db, project.id, id)
  return {
    project: publicProject(project),
    sessionId: id,
    recording: {
      available: row.recording_chunks > 0, chunks: row.recording_chunks,
      bytes: row.recording_bytes, droppedChunks: row.recording_dropped,
    },
    chunks: chunks.map((c) => ({
      id: c.id, startedAt: toIso(c.started_at), endedAt: toIso(c.ended_at), events: c.events, bytes: c.bytes,
      fullSnapshot: c.full_snapshot === 1,
    })),
  }
}

/** One chunk's gzip data, as stored. */
export async function getChunk(db: Db, project: ProjectContext, id: string, chunkId: string, now = Date.now()): Promise<Buffer> {
  await store.liveSession(db, project, id, now)
  const data = await store.chunkData(db, project.id, id, chunkId)
  if (!data) throw notFound(`Recording chunk "${chunkId}" of session "${id}" not found`)
  return data
}

/** Inflates stored data for a client that does not accept gzip. */
