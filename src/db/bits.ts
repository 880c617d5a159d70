/**
 * Term bitmaps (term_bits, src/search/tables.ts): for each project and search term, the visits that have it, one bit
 * a visit at its `sessions.num`, in chunks of BITS_PER_CHUNK bits, so two broad filters' exact total is an AND and a
 * count of chunks rather than a probe per visit. Bit `n` of a chunk is its byte `n >> 3`'s bit `0x80 >> (n & 7)`: the
 * order PostgreSQL numbers a bit string's bits in (set_bit, a hex literal), so both engines hold the same bytes.
 *
 * These are the byte operations SQLite runs as functions of its own (registered in sqlite/dialect.ts); PostgreSQL
 * stores a chunk as bit(BITS_PER_CHUNK) and has them built in (|, & ~, bit_count, bit_or, bit_and).
 */

/** Visits a chunk holds: 1 KB a row, ~120 rows a term on 1M visits. */
export const BITS_PER_CHUNK = 8192
export const CHUNK_BYTES = BITS_PER_CHUNK / 8

/** The chunk a visit's number falls in, and its bit there. */
export const chunkOf = (num: number): number => Math.floor(num / BITS_PER_CHUNK)
export const bitOf = (num: number): number => num - chunkOf(num) * BITS_PER_CHUNK

/** A chunk with the given bits set. */
export function bitsWith(bits: Iterable<number>): Buffer {
  const chunk = Buffer.alloc(CHUNK_BYTES)
  for (const n of bits) setBit(chunk, n)
  return chunk
}

const setBit = (chunk: Buffer, n: number): void => {
  const at = n >> 3
  chunk[at] = (chunk[at] ?? 0) | (0x80 >> (n & 7))
}

/** Bits set in each byte value. */
const ONES = Uint8Array.from({ length: 256 }, (_, v) => {
  let n = 0
  for (let b = v; b > 0; b >>= 1) n += b & 1
  return n
})

/**
 * The bits set in all of the chunks (a chunk missing or shorter than CHUNK_BYTES has none past its end). SQL null
 * anywhere counts nothing.
 */
export function countAnd(...chunks: readonly unknown[]): number {
  const buffers: Uint8Array[] = []
  for (const c of chunks) {
    if (!(c instanceof Uint8Array)) return 0
    buffers.push(c)
  }
  const [first, second, ...rest] = buffers
  if (first === undefined) return 0
  const length = Math.min(first.length, second?.length ?? Infinity, ...rest.map((b) => b.length))
  let count = 0
  // Two chunks, the common case (a pair of filters), without the inner loop.
  if (second === undefined || rest.length === 0) {
    for (let i = 0; i < length; i++) count += ONES[(first[i] ?? 0) & (second?.[i] ?? 0xff)] ?? 0
    return count
  }
  for (let i = 0; i < length; i++) {
    let v = (first[i] ?? 0) & (second[i] ?? 0)
    for (const b of rest) v &= b[i] ?? 0
    count += ONES[v] ?? 0
  }
  return count
}

/** `a` with `b`'s bits set too. */
export function or(a: unknown, b: unknown): Buffer {
  const out = Buffer.alloc(CHUNK_BYTES)
  for (const c of [a, b]) if (c instanceof Uint8Array) for (let i = 0; i < Math.min(c.length, CHUNK_BYTES); i++) out[i] = (out[i] ?? 0) | (c[i] ?? 0)
  return out
}

/** `a` with `b`'s bits cleared. */
export function andNot(a: unknown, b: unknown): Buffer {
  const out = Buffer.alloc(CHUNK_BYTES)
  if (!(a instanceof Uint8Array)) return out
  const clear = b instanceof Uint8Array ? b : new Uint8Array(0)
  for (let i = 0; i < Math.min(a.length, CHUNK_BYTES); i++) out[i] = (a[i] ?? 0) & ~(clear[i] ?? 0)
  return out
}

/** The aggregate that builds a chunk from its visits' bits (`bitOf`), for filling term_bits in one statement. */
export const collectBits = {
  start: (): Buffer => Buffer.alloc(CHUNK_BYTES),
  step: (chunk: Buffer, n: unknown): Buffer => {
    if (typeof n === 'number' || typeof n === 'bigint') setBit(chunk, Number(n))
    return chunk
  },
}

/** The aggregate that ANDs chunks (one chunk of several terms' rows), as PostgreSQL's bit_and. */
export const andBits = {
  start: (): Buffer | null => null,
  step: (acc: Buffer | null, chunk: unknown): Buffer => {
    const bytes = chunk instanceof Uint8Array ? chunk : new Uint8Array(0)
    if (acc === null) return Buffer.from(Buffer.from(bytes).subarray(0, CHUNK_BYTES))
    for (let i = 0; i < acc.length; i++) acc[i] = (acc[i] ?? 0) & (bytes[i] ?? 0)
    return acc
  },
}
