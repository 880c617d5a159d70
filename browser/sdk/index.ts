import { DEFAULT_MAX_CHUNK_BYTES } from '../../common/limits.ts'
import { installCapture, type CaptureOptions } from './capture.ts'
import { errorEvent, fingerprintOf, messageOf, type GroupOptions } from './errors.ts'
import { makeQueue, type SdkEvent } from './queue.ts'
import { maskEventCards } from './scrub.ts'
import type { RecorderHost, RecorderStats } from './recorder.ts'
import { makeTransport, sendWithRetry, type Transport } from './transport.ts'

export type { GroupOptions }

export interface Options extends Partial<CaptureOptions> {
  /** The project's public ingest key (sw_ing_…). */
  ingestKey: string
  /** The Sessionwatch service's base URL; default: the origin serving the script. */
  endpoint?: string
  /** A new session starts after this long without events (default 30 minutes). */
  sessionTimeoutMs?: number
  /** How often queued events are sent (default 5 s), and the most per batch (default 50). */
  flushIntervalMs?: number
  maxBatchEvents?: number
  /** Events held at most while the network is down; beyond it new ones are dropped and counted (default 1000). */
  maxQueue?: number
  /** Screen recording with rrweb, loaded after the page from `recorderUrl` (default true). */
  record?: boolean
  /** Default: `<endpoint>/sdk/recorder.js`. */
  recorderUrl?: string
  /** A recording chunk, opening with a full snapshot, leaves at most this often (default 30 s). */
  recordCheckoutMs?: number
  /** Compressed chunks above this are dropped and counted (default 512 KiB, the service's default limit). */
  recordMaxChunkBytes?: number
}

const KEY = 'sw_session'
/**
 * captureError sends after this delay rather than at once: the errors of one cascade (a failed render throwing
 * in every component) then leave in one request, and still long before the next interval.
 */
const FLUSH_SOON_MS = 100
const rand = () => Math.random().toString(36).slice(2, 10)

/** The session key and the time of its last event, from sessionStorage (null when absent or blocked). */
function readSaved(): { k: string; t: number } | null {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as { k: string; t: number } | null
  } catch {
    return null
  }
}
let state: ReturnType<typeof start> | null = null

/** Starts recording. Calling it again does nothing; it never throws. */
export function init(options: Options): void {
  try {
    state ??= start(options)
  } catch {
    // A broken SDK must not break the page.
  }
}

/** Records the visitor's own bug report, with the page's `fingerprint` when given, and sends it at once. */
export function report(message: unknown, options?: GroupOptions): void {
  try {
    state?.record({ type: 'USER_REPORT', message: messageOf(message), url: location.href, fingerprint: fingerprintOf(options) })
    void state?.flush()
  } catch {
    // As above.
  }
}

/**
 * Records an ERROR from anything the page caught (an Error, a string, any value), with its message, stack and
 * the page's URL, grouped by `fingerprint` when given; it leaves FLUSH_SOON_MS later (or after the batch in flight).
 * Never throws.
 */
export function captureError(error: unknown, options?: GroupOptions): void {
  try {
    state?.record(errorEvent(error, options, location.href))
    state?.flushSoon()
  } catch {
    // As above.
  }
}

/** What was sent, what waits, and what was dropped by reason. */
export function stats() {
  return state
    ? { sent: state.sent(), queued: state.queue.size, dropped: { ...state.queue.dropped }, recording: state.recording() }
    : null
}

function start(options: Options, transport?: Transport) {
  const o = {
    slowThresholdMs: 1000, maxBodyChars: 4096, maskInputs: true, captureConsole: true, sessionTimeoutMs: 1_800_000,
    flushIntervalMs: 5000, maxBatchEvents: 50, maxQueue: 1000, endpoint: location.origin, record: true,
    recordCheckoutMs: 30_000, recordMaxChunkBytes: DEFAULT_MAX_CHUNK_BYTES, ...options,
  }
  const io = transport ?? makeTransport({ endpoint: o.endpoint, ingestKey: o.ingestKey })
  const queue = makeQueue(o.maxQueue)
  const landing = location.href
  let sent = 0
  let inFlight: { body: string; count: number } | null = null

  const sessionKey = (): string => {
    const now = Date.now()
    const saved = readSaved()
    const key = saved && now - saved.t < o.sessionTimeoutMs ? saved.k : `${rand()}${rand()}`
    try { sessionStorage.setItem(KEY, JSON.stringify({ k: key, t: now })) } catch { /* storage blocked */ }
    return key
  }
  let currentKey = sessionKey()

  const record = (event: Omit<SdkEvent, 'id' | 'createdAt'>) => {
    currentKey = sessionKey()
    queue.push({ ...maskEventCards(event), id: `${rand()}${rand()}`, createdAt: Date.now() })
  }
  const batchOf = (events: SdkEvent[]) =>
    JSON.stringify({ sessionKey: currentKey, batchId: `${rand()}${rand()}`, sentAt: Date.now(), page: landing, events })

  let soon = 0
  // While a batch is in flight flush() does nothing, so the timer waits for it rather than for the next interval.
  const flushSoon = () => {
    soon ||= setTimeout(() => { soon = 0; if (inFlight) flushSoon(); else void flush() }, FLUSH_SOON_MS)
  }
  const flush = async (): Promise<void> => {
    if (inFlight !== null || queue.size === 0) return
    inFlight = { body: batchOf(queue.take(o.maxBatchEvents)), count: 0 }
    inFlight.count = (JSON.parse(inFlight.body) as { events: unknown[] }).events.length
    // The first send and five retries.
    const delivery = await sendWithRetry((body) => io.send(body), inFlight.body, 6)
    if (delivery === 'sent') sent += inFlight.count
    else queue.drop(delivery, inFlight.count)
    inFlight = null
  }

  /** A closing page: everything pending leaves by beacon. A batch already in flight goes again with the same id. */
  const flushOnHide = () => {
    const bodies = inFlight ? [inFlight.body] : []
    while (queue.size > 0) bodies.push(batchOf(queue.take(o.maxBatchEvents)))
    for (const body of bodies) {
      if (!io.beacon(body)) void io.send(body)
    }
  }

  const guard = <A extends unknown[]>(fn: (...args: A) => void) => (...args: A) => {
    try { fn(...args) } catch { /* never into the page */ }
  }
  installCapture(o, record, guard, (url) => io.isOwn(url))
  setInterval(guard(() => { void flush() }), o.flushIntervalMs)
  addEventListener('pagehide', guard(flushOnHide))
  document.addEventListener('visibilitychange', guard(() => { if (document.visibilityState === 'hidden') flushOnHide() }))

  let recording: (() => RecorderStats) | null = null
  const host: RecorderHost = {
    sessionKey: () => (currentKey = sessionKey()),
    send: (body) => io.send(body),
    beacon: (body) => io.beacon(body),
    page: landing,
    checkoutMs: o.recordCheckoutMs,
    maxChunkBytes: o.recordMaxChunkBytes,
  }
  // The recorder (rrweb, ~30 KB) loads after the page so it never delays it.
  const loadRecorder = guard(() => {
    const script = document.createElement('script')
    script.src = o.recorderUrl ?? `${o.endpoint.replace(/\/+$/, '')}/sdk/recorder.js`
    script.async = true
    script.onload = guard(() => {
      const recorder = (window as { SessionwatchRecorder?: { start(h: RecorderHost): (() => RecorderStats) | null } }).SessionwatchRecorder
      recording = recorder?.start(host) ?? null
    })
    document.head.appendChild(script)
  })
  if (o.record) {
    if (document.readyState === 'complete') loadRecorder()
    else addEventListener('load', loadRecorder)
  }
  return { record, flush, flushSoon, queue, sent: () => sent, recording: () => recording?.() ?? null }
}
