import { promisify } from 'node:util'
import { gzip as gzipCb } from 'node:zlib'
import { DEFAULT_SLOW_THRESHOLD_MS } from '../../common/limits.ts'
import { MAX_CHUNK_JSON_BYTES, MAX_DURATION_MS, TEXT_LIMITS } from '../contract/limits.ts'
import { CorruptData, inflate, type InflateBudget } from '../http/inflate.ts'
import type { IngestEvent } from '../contract/index.ts'
import { CUSTOM, parseChunk, scrubRecording, type CheckedChunk } from '../recording/service.ts'
import { resolveUrl } from './breadcrumbs.ts'
import { replayClicks } from './clicks.ts'
import { contentId, sentryTime } from './values.ts'

const gzip = promisify(gzipCb)

/**
 * A `replay_recording` payload: `{"segment_id":N}` on its first line, then the segment's rrweb events as JSON,
 * zlib-deflated by the SDK's worker (first byte 0x78), gzip (1f 8b), or plain JSON when no worker could run.
 * Returns the chunk checked and compressed for storage, with an id from the replay and the segment (zero-padded,
 * so chunks recorded in the same millisecond keep segment order), and the events it tells of — slow requests from its
 * spans, rage and dead clicks from its click detector's breadcrumbs (clicks.ts): the segment is inflated and parsed
 * once, for all of them. A segment that inflates beyond MAX_CHUNK_JSON_BYTES, the ratio
 * bound or the request's `budget` refuses the whole envelope (413, a decompression bomb); one that is merely bad is
 * dropped, with why: Sentry's SDK stops a replay at its first non-2xx answer, so the rest of the replay still arrives.
 */
export async function recordingChunk(
  replayId: string, payload: Buffer, segmentHint: unknown, budget: InflateBudget, page?: string,
  isOwnUrl: (url: string) => boolean = () => false,
): Promise<{ chunk: CheckedChunk; events: IngestEvent[] } | { dropped: string }> {
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
    const compression = data[0] === 0x78 ? 'deflate' : data[0] === 0x1f && data[1] === 0x8b ? 'gzip' : null
    const limits = { maxBytes: MAX_CHUNK_JSON_BYTES, budget, what: `Replay segment ${segment}` }
    json = compression === null ? data : await inflate(data, compression, limits)
  } catch (error) {
    if (error instanceof CorruptData) return { dropped: 'it does not inflate' }
    throw error
  }
  if (json.length > MAX_CHUNK_JSON_BYTES) return { dropped: 'it is beyond the chunk limit' }
  const parsed = parseChunk(json)
  if (typeof parsed === 'string') return { dropped: `its data ${parsed}` }
  const scrubbed = scrubRecording(parsed.events) ? JSON.stringify(parsed.events) : json
  return {
    chunk: { id: `sentry-${replayId}-${String(segment).padStart(6, '0')}`, gzip: await gzip(scrubbed), summary: parsed.summary },
    events: [...slowRequests(parsed.events, page, isOwnUrl), ...replayClicks(parsed.events, segment, page)],
  }
}

/**
 * The replay's slow requests and resources: its `performanceSpan` custom events (`resource.fetch`, `resource.xhr`,
 * `resource.script`, …) that took longer than DEFAULT_SLOW_THRESHOLD_MS, as SLOW_REQUEST events — what our SDK
 * reports from the same browser timings. Error breadcrumbs carry no durations; these do. The other spans (failed
 * requests, navigations, paints, web vitals, memory) are left to the recording: failed requests come from error
 * breadcrumbs, and the same request twice would be two events.
 */
function slowRequests(events: readonly unknown[], page: string | undefined, isOwnUrl: (url: string) => boolean): IngestEvent[] {
  const slow: IngestEvent[] = []
  for (const raw of events) {
    const event = raw as { type?: unknown; data?: { tag?: unknown; payload?: unknown } } | null
    if (event?.type !== CUSTOM || event.data?.tag !== 'performanceSpan') continue
    const span = event.data.payload as { op?: unknown; description?: unknown; startTimestamp?: unknown; endTimestamp?: unknown; data?: { method?: unknown; statusCode?: unknown } } | null
    const op = typeof span?.op === 'string' ? span.op : ''
    const start = sentryTime(span?.startTimestamp)
    const end = sentryTime(span?.endTimestamp)
    if (!op.startsWith('resource.') || typeof span?.description !== 'string' || start === undefined || end === undefined) continue
    const duration = end - start
    const url = resolveUrl(span.description, page)
    if (duration <= DEFAULT_SLOW_THRESHOLD_MS || duration > MAX_DURATION_MS || isOwnUrl(url)) continue
    const kind = op.slice('resource.'.length)
    const request = kind === 'fetch' || kind === 'xhr'
    const method = span.data?.method
    const status = span.data?.statusCode
    slow.push({
      id: contentId('s', `${start}\u0000${op}\u0000${url}`), type: 'SLOW_REQUEST', createdAt: start,
      url: url.slice(0, TEXT_LIMITS.url * 2), durationMs: duration,
      ...(request && typeof method === 'string' && /^[A-Za-z]{1,16}$/.test(method) && { method }),
      ...(typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599 && { statusCode: status }),
      ...(!request && { message: kind }),
    })
  }
  return slow
}

