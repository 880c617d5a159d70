import { record } from '@rrweb/record'
import { gzipSync, strToU8 } from 'fflate'
import { sendWithRetry, type SendResult } from './transport.ts'

/** What the core SDK lends the recorder: the session, its transport, and the recording options. */
export interface RecorderHost {
  /** The current session key (refreshed by activity, like events refresh it). */
  sessionKey(): string
  /** A retryable POST of an ingest body. */
  send(body: string): Promise<SendResult>
  /** A beacon for a closing page; false when the browser refused it. */
  beacon(body: string): boolean
  page: string
  /** A new chunk, opening with a full snapshot, at most this often (default 30 s). */
  checkoutMs: number
  /** Compressed chunks larger than this are dropped and counted (the service's default limit: 512 KiB). */
  maxChunkBytes: number
}

export interface RecorderStats {
  chunks: number
  bytes: number
  dropped: number
}

/**
 * What `start` returns: the stats getter, as every SDK version expects (a page pinning an old /sdk/<hash>.js loads
 * today's recorder), carrying `stop`, which newer SDKs call when the visitor withdraws consent.
 */
export type Recording = (() => RecorderStats) & { stop?: () => void }

/** Uncompressed JSON held before a chunk is cut early, so a busy page cannot grow memory without bound. */
const MAX_BUFFER_CHARS = 4_000_000
/** Beacons (and keepalive fetches) carry at most 64 KiB in total. */
const BEACON_MAX = 60_000
const ATTEMPTS = 4
/** rrweb's EventType.Meta, which opens every snapshot. */
const META = 4

const rand = () => Math.random().toString(36).slice(2, 10)
const isPassword = (el: HTMLElement | null) => el instanceof HTMLInputElement && el.type.toLowerCase() === 'password'

/**
 * Records the page with rrweb and uploads it in gzip chunks through the ingest endpoint. Each
 * chunk opens with a full snapshot (a "checkout"), so a replay can start at any chunk. Privacy by
 * default: every input value is masked (password values are never captured, not even their
 * length); `sw-block` / `data-sw-block` replaces an element with an empty box, `sw-mask` /
 * `data-sw-mask` masks its text, `sw-ignore` stops recording input on it.
 * Returns the stats getter with `stop`, or null when recording could not start. Never throws into the page.
 */
export function startRecorder(host: RecorderHost): Recording | null {
  const stats: RecorderStats = { chunks: 0, bytes: 0, dropped: 0 }
  const pageId = rand() + rand()
  let n = 0
  let parts: string[] = []
  let chars = 0
  let changed = false
  let stopped = false

  const body = (id: string, data: Uint8Array) => {
    let binary = ''
    for (let i = 0; i < data.length; i += 0x8000) binary += String.fromCharCode(...data.subarray(i, i + 0x8000))
    return JSON.stringify({
      sessionKey: host.sessionKey(), batchId: id, sentAt: Date.now(), page: host.page, events: [],
      recording: [{ id, data: btoa(binary) }],
    })
  }

  /** Compresses what is buffered into one chunk and sends it (by beacon when the page is closing). */
  const cut = (closing: boolean) => {
    if (parts.length === 0) return
    const json = `[${parts.join(',')}]`
    parts = []
    chars = 0
    changed = false
    const data = gzipSync(strToU8(json), { level: 6 })
    if (data.length > host.maxChunkBytes) {
      stats.dropped++
      return
    }
    const payload = body(`${pageId}-${n++}`, data)
    const count = () => { stats.chunks++; stats.bytes += data.length }
    if (closing && payload.length < BEACON_MAX && host.beacon(payload)) {
      count()
      return
    }
    void sendWithRetry((body) => host.send(body), payload, ATTEMPTS).then((delivery) => { if (delivery === 'sent') count(); else stats.dropped++ })
  }

  // A stopped recorder's listeners stay (the page may still hold them) but do nothing.
  const guard = (fn: () => void) => () => { try { if (!stopped) fn() } catch { /* never into the page */ } }
  const checkout = guard(() => { record.takeFullSnapshot(true) })

  const stopRrweb = record({
    emit(event, isCheckout) {
      try {
        if (stopped) return
        // A checkout's first event (Meta; its FullSnapshot follows, also flagged) opens a new chunk.
        if (isCheckout && (event.type as number) === META) cut(false)
        const text = JSON.stringify(event)
        parts.push(text)
        chars += text.length
        if (parts.length > 2) changed = true
        // Cut early on a very busy page; the next chunk opens with a snapshot taken outside this callback.
        if (chars > MAX_BUFFER_CHARS) {
          cut(false)
          setTimeout(checkout, 0)
        }
      } catch {
        // As above.
      }
    },
    maskAllInputs: true,
    maskInputFn: (text, el) => (isPassword(el) ? '' : '*'.repeat(text.length)),
    blockClass: 'sw-block',
    blockSelector: '[data-sw-block]',
    maskTextClass: 'sw-mask',
    maskTextSelector: '[data-sw-mask]',
    ignoreClass: 'sw-ignore',
    slimDOMOptions: 'all',
    recordCanvas: false,
    collectFonts: false,
    inlineImages: false,
    sampling: { mousemove: 50, scroll: 150, input: 'last' },
    errorHandler: () => true,
  })
  if (!stopRrweb) return null

  // Time-based checkouts: a chunk leaves every checkoutMs while the page changes, none while it is idle.
  const timer = setInterval(guard(() => { if (changed) checkout() }), host.checkoutMs)
  addEventListener('pagehide', guard(() => { cut(true) }))
  document.addEventListener('visibilitychange', guard(() => {
    if (document.visibilityState === 'hidden') cut(true)
    // What follows a flush must open with a snapshot again.
    else checkout()
  }))
  return Object.assign(() => ({ ...stats }), {
    /** Stops for good, dropping what is buffered: nothing recorded after consent is withdrawn may leave. */
    stop: guard(() => {
      stopped = true
      clearInterval(timer)
      stopRrweb()
      parts = []
    }),
  })
}

/** The recorder bundle's entry: the core SDK finds it at window.SessionwatchRecorder once loaded. */
export { startRecorder as start }
