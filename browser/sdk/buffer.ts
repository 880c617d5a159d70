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
export function makeHeld(keepMs: number, maxBytes: number) {
  let segments: Segment[] = []
  let bytes = 0
  const prune = (now: number) => {
    for (let next = segments[1]; next && (next.at <= now - keepMs || bytes > maxBytes); next = segments[1]) bytes -= segments.shift()?.bytes ?? 0
  }
  return {
    /** Adds the next chunk in recording order; a continuation with no snapshot before it would not replay and is dropped. */
    add(chunk: Held, now: number): void {
      if (chunk.full) segments.push({ at: chunk.at, bytes: 0, chunks: [] })
      const last = segments.at(-1)
      if (!last) return
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

/** Where a page leaves its held recording for the visit's next page (sessionStorage: one tab, one visit). */
export const CARRY_KEY = 'sw_rec_carry'

/**
 * The held chunks as one string for sessionStorage: a JSON line naming the visit and each chunk (id, time, snapshot,
 * plain, length), then their data joined, so writing it is a copy of data that is already compressed.
 */
export function carryText(sessionKey: string, chunks: readonly Held[]): string {
  const header = JSON.stringify({ k: sessionKey, c: chunks.map((c) => [c.id, c.at, c.full ? 1 : 0, c.plain ? 1 : 0, c.data.length]) })
  return `${header}\n${chunks.map((c) => c.data).join('')}`
}

/** The chunks a page of the same visit carried (none for another visit's, or anything unreadable). */
export function readCarry(text: string | null, sessionKey: string): Held[] {
  if (!text) return []
  try {
    const line = text.indexOf('\n')
    const header = JSON.parse(text.slice(0, line)) as { k?: unknown; c?: unknown }
    if (header.k !== sessionKey || !Array.isArray(header.c)) return []
    let offset = line + 1
    const chunks: Held[] = []
    for (const [id, at, full, plain, length] of header.c as [string, number, number, number, number][]) {
      chunks.push({ id, at, full: full === 1, data: text.slice(offset, offset + length), ...(plain === 1 && { plain: true }) })
      offset += length
    }
    return offset === text.length ? chunks : []
  } catch {
    return []
  }
}
