import type { RecordingMode } from '../../src/contract/index.ts'

/** What a send came to: stored (for a recording chunk, `full` when the session takes no more), worth retrying, or refused for good. */
export type SendResult = { ok: true; full?: boolean } | { ok: false; retryAfterMs: number | null; fatal: boolean }

export interface TransportOptions {
  /** The service's base URL, e.g. https://sessionwatch.example.com */
  endpoint: string
  ingestKey: string
}

/** What a batch would say about a recording chunk sent as raw bytes (POST /ingest/v1/recording). */
export interface ChunkQuery { sessionKey: string; chunk: string; sentAt: number; page: string; mode?: RecordingMode }

export interface Transport {
  /** Posts a batch with fetch; `keepalive` only for small bodies (the Fetch spec caps them at 64 KiB in total). */
  send(body: string): Promise<SendResult>
  /** Posts a recording chunk as its gzip bytes, without a Content-Type: a cross-origin request without a preflight. */
  sendChunk(query: ChunkQuery, data: Uint8Array): Promise<SendResult>
  /** The same by navigator.sendBeacon, for a closing page; false when the browser refused it. */
  beaconChunk(query: ChunkQuery, data: Uint8Array): boolean
  /** Hands a batch to navigator.sendBeacon for a closing page; false when the browser refused it. */
  beacon(body: string): boolean
  /** Whether a URL is the SDK's own, so it is never recorded. */
  isOwn(url: string): boolean
}

const KEEPALIVE_MAX = 60_000

/**
 * The SDK's only I/O. fetch and sendBeacon are injectable, so tests drive it without a network.
 * A 429 or 503 answer is retried after its Retry-After; other 4xx are dropped (the batch is bad).
 */
export function makeTransport(
  opts: TransportOptions,
  fetchImpl: typeof fetch = globalThis.fetch.bind(globalThis),
  beaconImpl: Beacon | undefined = defaultBeacon(),
): Transport {
  const base = opts.endpoint.replace(/\/+$/, '')
  const url = `${base}/ingest/v1/batch`
  const chunkUrl = (q: ChunkQuery) => `${base}/ingest/v1/recording?${new URLSearchParams({
    key: opts.ingestKey, sessionKey: q.sessionKey, chunk: q.chunk, sentAt: String(q.sentAt), page: q.page, ...(q.mode && { mode: q.mode }) }).toString()}`
  const post = async (target: string, body: string | Uint8Array, headers: Record<string, string>, readFull = false): Promise<SendResult> => {
    try {
      const size = typeof body === 'string' ? body.length : body.byteLength
      // Bytes as a view over a plain ArrayBuffer, which is what fetch's body types take.
      const res = await fetchImpl(target, {
        method: 'POST', body: typeof body === 'string' ? body : new Uint8Array(body), keepalive: size < KEEPALIVE_MAX, credentials: 'omit', headers,
      })
      if (!res.ok) {
        const retryable = res.status === 429 || res.status >= 500
        return { ok: false, fatal: !retryable, retryAfterMs: retryAfter(res.headers.get('retry-after')) }
      }
      if (!readFull) return { ok: true }
      // A chunk's answer says whether the session reached its recording limit (IngestResult.recording.full).
      const answer = (await res.json().catch(() => null)) as { recording?: { full?: unknown } } | null
      return { ok: true, full: answer?.recording?.full === true }
    } catch {
      return { ok: false, fatal: false, retryAfterMs: null }
    }
  }
  return {
    send: (body) => post(url, body, { 'content-type': 'application/json', 'x-ingest-key': opts.ingestKey }),
    sendChunk: (query, data) => post(chunkUrl(query), data, {}, true),
    // Bodies go to sendBeacon as they are, never in a Blob: a Blob is registered with the browser's blob store on the
    // spot, which costs a closing page several times what a string or bytes cost.
    beacon(body) {
      if (!beaconImpl) return false
      // A string goes as text/plain, which needs no CORS preflight, which a closing page would never finish; the key
      // rides in the URL.
      return beaconImpl(`${url}?key=${encodeURIComponent(opts.ingestKey)}`, body)
    },
    beaconChunk(query, data) {
      // Bytes go without a Content-Type, so they need no preflight either.
      return beaconImpl ? beaconImpl(chunkUrl(query), new Uint8Array(data)) : false
    },
    isOwn: (target) => target.startsWith(base),
  }
}

/** navigator.sendBeacon, with the two bodies the SDK hands it. */
export type Beacon = (url: string, data: string | Uint8Array<ArrayBuffer>) => boolean

/** navigator.sendBeacon where there is one (read structurally: the SDK also runs in tests under Node). */
function defaultBeacon(): Beacon | undefined {
  const nav = (globalThis as { navigator?: { sendBeacon?: Beacon } }).navigator
  return nav?.sendBeacon ? nav.sendBeacon.bind(nav) : undefined
}

/** How a send with retries ended. */
export type Delivery = 'sent' | 'rejected' | 'retries_exhausted'

/**
 * Sends until the body is stored, refused for good, or `attempts` sends have failed. Between
 * failures it waits what the server asked for (Retry-After) or backs off 1 s, 2 s, 4 s … up to 30 s.
 */
export async function sendWithRetry<B>(send: (body: B) => Promise<SendResult>, body: B, attempts: number): Promise<Delivery> {
  for (let attempt = 1; ; attempt++) {
    const result = await send(body)
    if (result.ok) return 'sent'
    if (result.fatal) return 'rejected'
    if (attempt >= attempts) return 'retries_exhausted'
    await new Promise((r) => setTimeout(r, result.retryAfterMs ?? Math.min(30_000, 1000 * 2 ** (attempt - 1))))
  }
}

/** Retry-After as seconds or an HTTP date, in milliseconds; null when absent or unreadable. */
export function retryAfter(value: string | null): number | null {
  if (!value) return null
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now())
}
