import { scrub } from '../../common/scrub.ts'
import { record } from '@rrweb/record'
import { gzipSync } from 'fflate'
import { DEFAULT_RECORD_BUFFER_MS, RECORD_BUFFER_MAX_BYTES, RECORD_CHUNK_MS } from '../../common/limits.ts'
import { CARRY_KEY, carryIndex, CHUNK_PREFIX, clearCarry, fromBinary, makeHeld, readCarry, toBinary, type Held } from './buffer.ts'
import { makeCompressor } from './compressor.ts'
import { RRWEB_OPTIONS } from './rrweb-options.ts'
import { sendWithRetry, type ChunkQuery, type Delivery, type SendResult } from './transport.ts'

/** What the core SDK lends the recorder: the session, its transport, and the recording options. */
export interface RecorderHost {
  /** The current session key (refreshed by activity, like events refresh it). */
  sessionKey(): string
  /** A retryable POST of an ingest body. */
  send(body: string): Promise<SendResult>
  /** A beacon for a closing page; false when the browser refused it. */
  beacon(body: string): boolean
  /**
   * A chunk's upload as its gzip bytes, and its beacon (POST /ingest/v1/recording). An SDK older than the recorder
   * lends neither: its chunks then go as base64 in a batch through `send` and `beacon`.
   */
  sendChunk?(query: ChunkQuery, data: Uint8Array): Promise<SendResult>
  beaconChunk?(query: ChunkQuery, data: Uint8Array): boolean
  page: string
  /** A new full snapshot (and a chunk opening with it) at most this often while the page changes. */
  checkoutMs: number
  /**
   * A chunk leaves at least this often while the page changes, continuing the previous one without a snapshot
   * (default RECORD_CHUNK_MS; an SDK older than the recorder does not pass it).
   */
  chunkMs?: number
  /** Compressed chunks larger than this are dropped and counted (the service's default limit: 512 KiB). */
  maxChunkBytes: number
  /**
   * `onError`: hold the recording in memory (at least its last `bufferMs`) and send nothing until `onTrigger` calls
   * back, then send what is held and record on as `whole` does, every chunk marked `mode=onError`. An SDK older than
   * the recorder passes none of the three: the whole visit.
   */
  mode?: 'whole' | 'onError'
  bufferMs?: number
  onTrigger?(listener: () => void): void
}

export interface RecorderStats {
  chunks: number
  bytes: number
  dropped: number
  /** The service said the session reached its recording limit: the recorder stopped. */
  full?: boolean
  /** Compressed bytes held until the visit has a trigger (`mode: 'onError'`). */
  held?: number
}

/**
 * What `start` returns: the stats getter, as every SDK version expects (a page pinning an old /sdk/<hash>.js loads
 * today's recorder), carrying `stop`, which newer SDKs call when the visitor withdraws consent.
 */
export type Recording = (() => RecorderStats) & { stop?: () => void }

/**
 * Uncompressed JSON held before a chunk is cut early, so a busy page cannot grow memory without bound. The chunk
 * cut then continues the previous one: a busy page is never snapshotted again just because it is busy.
 */
const MAX_BUFFER_CHARS = 1_000_000
/** Beacons (and keepalive fetches) carry at most 64 KiB in total. */
const BEACON_MAX = 60_000
/**
 * What a closing page sends at most of its last events as plain JSON: a beacon's cost grows with its body (in Chromium
 * here ~1.7 ms for 16 KB, ~6 ms for 60 KB), and pagehide work should stay within a few milliseconds.
 */
const CLOSING_PLAIN_MAX = 16_000
const ATTEMPTS = 4
const REFUSED: SendResult = { ok: false, fatal: true, retryAfterMs: null }
/** rrweb's EventType.Meta, which opens every snapshot, and EventType.FullSnapshot, which follows it. */
const META = 4
const FULL_SNAPSHOT = 2

/**
 * Plain JSON of its last events a page holding its recording writes on pagehide at most (the chunks it held are in
 * sessionStorage already): setItem costs ~3 ms per 100 KB in Chromium.
 */
const CARRY_PLAIN_MAX = 32_000

const rand = () => Math.random().toString(36).slice(2, 10)

/** The first events of `events` whose JSON array fits in `max` characters: how many. */
const fitting = (events: readonly string[], max: number) => {
  let take = 0
  for (let size = 2; take < events.length && (size += (events[take]?.length ?? 0) + 1) <= max;) take++
  return take
}

/** What this recorder can do, for an SDK to check before it asks for it (an older recorder has no `modes`). */
export const modes: readonly string[] = ['whole', 'onError']

/**
 * Records the page with rrweb and uploads it in gzip chunks through the ingest endpoint. A full snapshot opens the
 * recording and is taken again at most every `checkoutMs` while the page changes; in between, a chunk leaves every
 * `chunkMs` (or when a busy page fills the buffer) and continues the previous one, so the player, which loads them
 * all, replays them in order. Compression runs outside rrweb's observer callbacks, in a Worker where the page allows one.
 * Privacy by default: every input value is masked (password values are never captured, not even their length);
 * `sw-block` / `data-sw-block` replaces an element with an empty box, `sw-mask` / `data-sw-mask` masks its text,
 * `sw-ignore` stops recording input on it.
 * With `mode: 'onError'` chunks are held (buffer.ts) instead of sent, carried to the visit's next page on pagehide, and
 * sent once the visit has a trigger.
 * Returns the stats getter with `stop`, or null when recording could not start. Never throws into the page.
 */
export function startRecorder(host: RecorderHost): Recording | null {
  const stats: RecorderStats = { chunks: 0, bytes: 0, dropped: 0 }
  const pageId = rand() + rand()
  let n = 0
  let parts: string[] = []
  let chars = 0
  /** The first buffered event's time, and whether it opens a snapshot: what a held chunk says of itself. */
  let partsAt = 0
  let partsFull = false
  /** Chunks go up marked `onError` when the SDK holds the visit's recording; until its trigger they are held. */
  const tag = host.mode === 'onError' ? 'onError' as const : undefined
  let holding = tag !== undefined
  const keepMs = host.bufferMs ?? DEFAULT_RECORD_BUFFER_MS
  /** Held chunks whose data sessionStorage has (buffer.ts CHUNK_PREFIX), for the visit's next page. */
  const stored = new Set<string>()
  const unstore = (chunks: Held[]) => {
    for (const c of chunks) {
      stored.delete(c.id)
      try { sessionStorage.removeItem(CHUNK_PREFIX + c.id) } catch { /* storage blocked */ }
    }
  }
  const held = makeHeld(keepMs, RECORD_BUFFER_MAX_BYTES, unstore)
  /** Holds a chunk, and writes it for the next page now, while the page is not leaving. */
  const hold = (c: Held) => {
    try {
      sessionStorage.setItem(CHUNK_PREFIX + c.id, c.data)
      stored.add(c.id)
    } catch { /* storage full or blocked: the next page gets what was written before it */ }
    held.add(c, Date.now())
  }
  const forget = () => {
    held.take()
    stored.clear()
    try { clearCarry(sessionStorage) } catch { /* storage blocked */ }
  }
  /** When the last full snapshot was taken. */
  let snapAt = Date.now()
  /** Whether the page changed since the last full snapshot (past the snapshot's own events). */
  let changed = false
  let stopped = false

  /** A batch carrying the chunk as base64, for an SDK that cannot send bytes. */
  const body = (id: string, data: Uint8Array) => JSON.stringify({
    sessionKey: host.sessionKey(), batchId: id, sentAt: Date.now(), page: host.page, events: [],
    recording: [{ id, data: btoa(toBinary(data)), ...(tag && { mode: tag }) }],
  })

  const query = (id: string): ChunkQuery => ({ sessionKey: host.sessionKey(), chunk: id, sentAt: Date.now(), page: host.page, ...(tag && { mode: tag }) })
  const count = (data: Uint8Array) => { stats.chunks++; stats.bytes += data.length }

  /** Hands a chunk to the browser's beacon, for a closing page; false when it is too large or the browser refuses it. */
  const beaconed = (id: string, data: Uint8Array): boolean => {
    let sent: boolean
    if (host.sendChunk && host.beaconChunk) sent = data.length < BEACON_MAX && host.beaconChunk(query(id), data)
    else {
      const payload = body(id, data)
      sent = payload.length < BEACON_MAX && host.beacon(payload)
    }
    if (sent) count(data)
    return sent
  }

  /**
   * Sends a chunk (its gzip bytes, or a closing page's plain JSON): by beacon when the page is closing and it fits, else
   * by fetch with retries.
   */
  const deliver = (id: string, data: Uint8Array, closing: boolean) => {
    if (data.length > host.maxChunkBytes) {
      stats.dropped++
      return
    }
    if (closing && beaconed(id, data)) return
    const settle = (delivery: Delivery) => { if (delivery === 'sent') count(data); else stats.dropped++ }
    if (host.sendChunk) {
      const first = query(id)
      const upload = async (d: Uint8Array) => {
        const result = await (host.sendChunk?.({ ...first, sentAt: Date.now() }, d) ?? REFUSED)
        if (result.ok && result.full === true) halt(true)
        return result
      }
      void sendWithRetry(upload, data, ATTEMPTS).then(settle)
    } else void sendWithRetry((b: string) => host.send(b), body(id, data), ATTEMPTS).then(settle)
  }

  /** Chunks still being compressed asynchronously, by id: a closing page sends (or carries) them itself. */
  const compressing = new Map<string, { json: string; at: number; full: boolean }>()
  const compress = makeCompressor()
  const startCompressing = (id: string, json: string, closing: boolean) => {
    const chunk = { json, at: partsAt, full: partsFull }
    compressing.set(id, chunk)
    void compress(json).then((data) => {
      if (!compressing.delete(id)) return
      if (holding) hold({ id, at: chunk.at, full: chunk.full, data: toBinary(data) })
      else deliver(id, data, closing)
    }, () => { if (compressing.delete(id)) stats.dropped++ })
  }

  /**
   * The visit has a trigger: what is held leaves, oldest first (the previous page's first), then what is being
   * compressed and buffered, and the recorder goes on as for a whole visit.
   */
  const release = () => {
    if (!holding) return
    holding = false
    const chunks = held.take()
    forget()
    for (const c of chunks) deliver(c.id, c.plain ? new TextEncoder().encode(c.data) : fromBinary(c.data), false)
    cut(false)
  }

  /**
   * A closing page holding its recording leaves it to the visit's next page: its held chunks are in sessionStorage
   * already; it adds, as plain JSON while they fit in CARRY_PLAIN_MAX, those still being compressed and the first of
   * its buffered events, then the index. What does not fit stays, for a page that lives on (back/forward cache).
   */
  const carry = () => {
    let budget = CARRY_PLAIN_MAX
    const plain = (id: string, at: number, full: boolean, json: string) => {
      if (json.length > budget) return false
      budget -= json.length
      hold({ id, at, full, data: json, plain: true })
      return true
    }
    let whole = true
    for (const [id, c] of compressing) {
      if (!(whole = plain(id, c.at, c.full, c.json))) break
      compressing.delete(id)
    }
    const take = whole ? fitting(parts, budget) : 0
    if (take > 0 && plain(`${pageId}-${n++}`, partsAt, partsFull, `[${parts.slice(0, take).join(',')}]`)) {
      parts = parts.slice(take)
      chars = parts.reduce((sum, p) => sum + p.length, 0)
    }
    const chunks = held.chunks()
    const upTo = chunks.findIndex((c) => !stored.has(c.id))
    try { sessionStorage.setItem(CARRY_KEY, carryIndex(host.sessionKey(), upTo < 0 ? chunks : chunks.slice(0, upTo))) } catch { /* as in hold */ }
  }

  /**
   * Takes what is buffered as the next chunk, compressed asynchronously and sent when ready. A closing page may not
   * live to see a promise settle, and compressing on the spot would hold up the page the visitor is going to: it
   * sends the chunks still being compressed, then as much of its remainder as fits, as plain JSON by beacon while they
   * fit in CLOSING_PLAIN_MAX (the service compresses them). The service stores a chunk id once, so one that also
   * finishes the slow way is not stored twice.
   */
  const cut = (closing: boolean) => {
    const taken = parts
    parts = []
    chars = 0
    if (!closing) {
      if (taken.length > 0) startCompressing(`${pageId}-${n++}`, `[${taken.join(',')}]`, false)
      return
    }
    let budget = CLOSING_PLAIN_MAX
    const plain = (chunk: string, text: string) => {
      if (text.length > budget) return false
      const bytes = new TextEncoder().encode(text)
      if (bytes.length > budget) return false
      budget -= bytes.length
      compressing.delete(chunk)
      // Plain JSON is larger than gzip, and beacons share 64 KiB in flight with the page's other keepalive requests
      // (earlier chunks still uploading among them): when the browser refuses it, it is compressed on the spot, at
      // gzip's fastest level, and tried again (then sent by fetch).
      if (!beaconed(chunk, bytes)) deliver(chunk, gzipSync(bytes, { level: 1 }), true)
      return true
    }
    // The oldest first: a replay missing its last seconds beats one with a gap.
    for (const [pending, c] of compressing) plain(pending, c.json)
    // Of the remainder, its first events while the beacons can carry them (a chunk continues the one before it, so
    // only its beginning can leave without a gap); the rest is joined and compressed on a later task — which a page
    // being unloaded never runs, so its pagehide does not pay for it, and a page that lives on (hidden, or kept in the
    // back/forward cache) runs.
    const later = (events: string[]) => {
      if (events.length === 0) return
      const id = `${pageId}-${n++}`
      setTimeout(guard(() => { startCompressing(id, `[${events.join(',')}]`, true) }), 0)
    }
    const take = fitting(taken, budget)
    if (take > 0 && plain(`${pageId}-${n}`, `[${taken.slice(0, take).join(',')}]`)) {
      n++
      later(taken.slice(take))
    } else later(taken)
  }

  // A stopped recorder's listeners stay (the page may still hold them) but do nothing.
  const guard = (fn: () => void) => () => { try { if (!stopped) fn() } catch { /* never into the page */ } }
  const checkout = guard(() => { record.takeFullSnapshot(true) })

  let sinceSnapshot = 0
  const stopRrweb = record({
    emit(event, isCheckout) {
      try {
        if (stopped) return
        // A checkout's first event (Meta; its FullSnapshot follows, also flagged) opens a new chunk.
        if (isCheckout && (event.type as number) === META) {
          cut(false)
          sinceSnapshot = 0
          snapAt = Date.now()
        }
        // Every snapshot opens with the page's URL: a token in it (an OAuth redirect's fragment) is scrubbed as in events.
        const meta = (event.type as number) === META ? event.data as { href?: unknown } : null
        if (typeof meta?.href === 'string') meta.href = scrub(meta.href)
        const text = JSON.stringify(event)
        if (parts.length === 0) {
          partsAt = event.timestamp
          partsFull = (event.type as number) === META
        }
        parts.push(text)
        chars += text.length
        if (++sinceSnapshot > 2) changed = true
        // The snapshot leaves at once (compressed asynchronously), so a page closed soon after has little left to
        // send; a very busy page's buffer leaves early, as a chunk that continues it.
        if ((event.type as number) === FULL_SNAPSHOT || chars > MAX_BUFFER_CHARS) cut(false)
      } catch {
        // As above.
      }
    },
    ...RRWEB_OPTIONS,
  })
  if (!stopRrweb) return null

  // By time, never by bytes: a snapshot at most every checkoutMs and a continuing chunk every chunkMs while the page
  // changes; an idle page sends nothing.
  const snapshots = setInterval(guard(() => {
    if (!changed) return
    changed = false
    checkout()
  }), host.checkoutMs)
  // While holding, a snapshot every keepMs (or when the newest segment holds half the bound), so the oldest can go.
  const chunks = setInterval(guard(() => {
    const now = Date.now()
    if (holding && changed && held.due(now, snapAt)) {
      changed = false
      checkout()
    } else cut(false)
    held.prune(now)
  }), host.chunkMs ?? RECORD_CHUNK_MS)
  addEventListener('pagehide', guard(() => { if (holding) carry(); else cut(true) }))
  // What follows a flush continues it: coming back to the tab takes no new snapshot.
  document.addEventListener('visibilitychange', guard(() => { if (document.visibilityState === 'hidden' && !holding) cut(true) }))
  /** Stops for good, dropping what is buffered: after consent is withdrawn, or once the session is full. */
  function halt(full: boolean): void {
    if (stopped) return
    stopped = true
    if (full) stats.full = true
    clearInterval(snapshots)
    clearInterval(chunks)
    stopRrweb?.()
    parts = []
    forget()
  }
  if (holding) {
    // What the visit's previous page held comes first; its storage is emptied, this page writes its own on leaving.
    try {
      const carried = readCarry(sessionStorage.getItem(CARRY_KEY), host.sessionKey(), (id) => sessionStorage.getItem(CHUNK_PREFIX + id))
      for (const c of carried) stored.add(c.id)
      // The index goes, and any chunk of another visit; this page's chunks join the carried ones, written as held.
      clearCarry(sessionStorage, stored)
      // (Before this page's first snapshot, which is still being compressed.)
      const now = Date.now()
      for (const c of carried) held.add(c, now)
    } catch { /* storage blocked: this page's own recording only */ }
    host.onTrigger?.(guard(release))
  }
  return Object.assign(() => ({ ...stats, ...(tag && { held: held.bytes() }) }), {
    /** Stops for good, dropping what is buffered: nothing recorded after consent is withdrawn may leave. */
    stop: guard(() => { halt(false) }),
  })
}

/** The recorder bundle's entry: the core SDK finds it at window.SessionwatchRecorder once loaded. */
export { startRecorder as start }
