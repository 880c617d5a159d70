import { promisify } from 'node:util'
import { gzip as gzipCb, gunzip as gunzipCb, inflate as inflateCb } from 'node:zlib'
import { MAX_CHUNK_JSON_BYTES } from '../../common/limits.ts'
import type { RecordingUpload } from '../recording/schema.ts'
import { summarize } from '../recording/service.ts'

const gzip = promisify(gzipCb)
const gunzip = promisify(gunzipCb)
const inflate = promisify(inflateCb)

/**
 * A `replay_recording` payload: `{"segment_id":N}` on its first line, then the segment's rrweb events as JSON,
 * zlib-deflated by the SDK's worker (first byte 0x78), gzip (1f 8b), or plain JSON when no worker could run.
 * Returns the chunk in Sessionwatch's own upload form (base64 of gzip JSON), which ingest checks like any other,
 * with an id from the replay and the segment (zero-padded, so chunks recorded in the same millisecond keep
 * segment order); or why it cannot be kept. A segment is never refused: Sentry's SDK stops a replay at its first
 * non-2xx answer, so a bad segment is dropped and the rest of the replay still arrives.
 */
export async function recordingChunk(replayId: string, payload: Buffer, segmentHint: unknown): Promise<RecordingUpload | { dropped: string }> {
  const newline = payload.indexOf(0x0a)
  let segment: unknown = segmentHint
  let data = payload
  if (newline !== -1 && payload[0] === 0x7b /* { */) {
    try {
      segment = (JSON.parse(payload.subarray(0, newline).toString('utf8')) as { segment_id?: unknown }).segment_id ?? segmentHint
      data = payload.subarray(newline + 1)
    } catch {
      return { dropped: 'its first line is not the {"segment_id":N} header' }
    }
  }
  if (typeof segment !== 'number' || !Number.isSafeInteger(segment) || segment < 0) return { dropped: 'it names no segment_id' }
  let json: Buffer
  try {
    const limit = { maxOutputLength: MAX_CHUNK_JSON_BYTES }
    json = data[0] === 0x78 ? await inflate(data, limit) : data[0] === 0x1f && data[1] === 0x8b ? await gunzip(data, limit) : data
  } catch (error) {
    return { dropped: (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? 'it inflates beyond the chunk limit' : 'it does not inflate' }
  }
  if (json.length > MAX_CHUNK_JSON_BYTES) return { dropped: 'it is beyond the chunk limit' }
  const problem = summarize(json)
  if (typeof problem === 'string') return { dropped: `its data ${problem}` }
  return { id: `sentry-${replayId}-${String(segment).padStart(6, '0')}`, data: (await gzip(json)).toString('base64') }
}
