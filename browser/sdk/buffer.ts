/*
 * The recording `record: 'onError'` holds until the visit has a trigger: compressed chunks grouped in segments, each
 * opening with a full snapshot, so the oldest can be dropped whole and what is kept still replays. Pure (no DOM), so
 * its pruning is unit-tested in Node; the recorder feeds it and reads it.
 */

/** A chunk held in memory, and carried to the visit's next page. */
export interface Held {
  id: string
  /** Its first event's time (epoch ms, the page's clock). */
  at: number
  /** Whether it opens with a full snapshot, so a segment starts with it. */
  full: boolean
  /**
   * Its gzip bytes as a one-byte string (a char a byte: V8 keeps it as compact as the bytes, and sessionStorage takes
   * it as it is, so carrying it is a copy), or its plain JSON when `plain`.
   */
  data: string
  plain?: boolean
}

interface Segment { at: number; bytes: number; chunks: Held[] }

/**
 * Keeps at least the last `keepMs` of the recording and little more: the oldest segment goes once the next one alone
 * reaches `keepMs` back, or while the whole passes `maxBytes`. The newest segment is always kept, so the recorder
 * opens a new one (a checkout) when `due` says so.
 */
export function makeHeld(keepMs: number, maxBytes: number, dropped: (chunks: Held[]) => void = () => undefined) {
  let segments: Segment[] = []
  let bytes = 0
  const prune = (now: number) => {
    for (let next = segments[1]; next && (next.at <= now - keepMs || bytes > maxBytes); next = segments[1]) {
      const gone = segments.shift()
      bytes -= gone?.bytes ?? 0
      if (gone) dropped(gone.chunks)
    }
  }
  return {
    /** Adds the next chunk in recording order; a continuation with no snapshot before it would not replay and is dropped. */
    add(chunk: Held, now: number): void {
      if (chunk.full) segments.push({ at: chunk.at, bytes: 0, chunks: [] })
      const last = segments.at(-1)
      if (!last) {
        dropped([chunk])
        return
      }
      last.chunks.push(chunk)
      last.bytes += chunk.data.length
      bytes += chunk.data.length
      prune(now)
    },
    prune,
    /**
     * Whether to take a new snapshot: the last was taken `keepMs` ago (at `snapAt`), or its segment (once held) holds
     * half the bound, so the one before can go without leaving less than half.
     */
    due(now: number, snapAt: number): boolean {
      const last = segments.at(-1)
      return now - snapAt >= keepMs || (last !== undefined && last.at >= snapAt && last.bytes > maxBytes / 2)
    },
    /** Everything held, oldest first. */
    chunks: (): Held[] => segments.flatMap((s) => s.chunks),
    /** Everything held, oldest first, emptying the buffer. */
    take(): Held[] {
      const all = segments.flatMap((s) => s.chunks)
      segments = []
      bytes = 0
      return all
    },
    bytes: () => bytes,
  }
}

/** Bytes as a one-byte string, a char each. */
export function toBinary(data: Uint8Array): string {
  let s = ''
  for (let i = 0; i < data.length; i += 0x8000) s += String.fromCharCode(...data.subarray(i, i + 0x8000))
  return s
}

/** A one-byte string back to its bytes. */
export function fromBinary(s: string): Uint8Array {
  const bytes = new Uint8Array(s.length)
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i)
  return bytes
}

/**
 * Where a page leaves its held recording for the visit's next page (sessionStorage: one tab, one visit): each chunk's
 * data under CHUNK_PREFIX and its id, written as it is held (setItem costs ~30 ms a MB in Chromium: too much for
 * pagehide), and on pagehide the index of them under CARRY_KEY.
 */
export const CARRY_KEY = 'sw_rec_carry'
export const CHUNK_PREFIX = 'sw_rec_c:'

/** The index of the held chunks: the visit, and each chunk's id, time, whether it opens a snapshot, and is plain JSON. */
export const carryIndex = (sessionKey: string, chunks: readonly Held[]): string =>
  JSON.stringify({ k: sessionKey, c: chunks.map((c) => [c.id, c.at, c.full ? 1 : 0, c.plain ? 1 : 0]) })

/**
 * The chunks a page of the same visit carried, up to the first whose data is missing (none for another visit's
 * index, or an unreadable one).
 */
export function readCarry(index: string | null, sessionKey: string, data: (id: string) => string | null): Held[] {
  const chunks: Held[] = []
  try {
    const header = JSON.parse(index ?? 'null') as { k?: unknown; c?: unknown } | null
    if (header?.k !== sessionKey || !Array.isArray(header.c)) return []
    for (const [id, at, full, plain] of header.c as [string, number, number, number][]) {
      const text = data(id)
      if (text === null) break
      chunks.push({ id, at, full: full === 1, data: text, ...(plain === 1 && { plain: true }) })
    }
  } catch { /* unreadable: what was read */ }
  return chunks
}

/** Removes the carried index and every carried chunk but those in `keep`. */
export function clearCarry(storage: { length: number; key(index: number): string | null; removeItem(key: string): void }, keep: ReadonlySet<string> = new Set()): void {
  storage.removeItem(CARRY_KEY)
  const gone: string[] = []
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i)
    if (key?.startsWith(CHUNK_PREFIX) && !keep.has(key.slice(CHUNK_PREFIX.length))) gone.push(key)
  }
  for (const key of gone) storage.removeItem(key)
}
