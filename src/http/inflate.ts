import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw, type BrotliDecompress, type Gunzip, type Inflate, type InflateRaw } from 'node:zlib'
import { byteSize } from '../util/limits.ts'
import { INFLATE_RATIO_FROM_BYTES, MAX_INFLATE_RATIO } from '../contract/limits.ts'
import { AppError } from '../errors.ts'

/** The compressed forms the service inflates: HTTP's gzip, zlib-wrapped and raw deflate, and brotli. */
export type Compression = 'gzip' | 'deflate' | 'deflate-raw' | 'br'

/**
 * Output pieces of 64 KiB rather than zlib's 16: each piece is a trip to the thread pool and back, and a bomb is
 * stopped within one piece of its bound either way.
 */
const CHUNK = { chunkSize: 64 * 1024 }
const inflaters: Record<Compression, () => Gunzip | Inflate | InflateRaw | BrotliDecompress> = {
  gzip: () => createGunzip(CHUNK), deflate: () => createInflate(CHUNK), 'deflate-raw': () => createInflateRaw(CHUNK),
  br: () => createBrotliDecompress(CHUNK),
}

/**
 * The bytes one request may inflate in all, over every chunk, body and item it carries: each inflation takes its
 * output from what is left, so nine chunks within their own limit cannot add up to nine times the work.
 */
export class InflateBudget {
  constructor(readonly total: number, private left = total) {}

  /** Takes `bytes` from what is left; false when that is more than is left. */
  take(bytes: number): boolean {
    this.left -= bytes
    return this.left >= 0
  }
}

/** Data that does not inflate as its compression says (corrupt, truncated, or not compressed at all). */
export class CorruptData extends Error {}

export interface InflateLimits {
  /** Most bytes this one inflation may give. */
  maxBytes: number
  /** The request's budget, which this inflation draws on. */
  budget: InflateBudget
  /** What is inflated, as the 413's message names it: `recording[2].data`, `The envelope`. */
  what: string
  /** The end of the 413's message: what became of the request, what to do. */
  outcome?: string
}

/**
 * Inflates data as a stream, and refuses it (413 payload_too_large) as soon as its output crosses any of three
 * bounds: `maxBytes`, MAX_INFLATE_RATIO times the input (beyond the first INFLATE_RATIO_FROM_BYTES), or what is
 * left of the request's budget. A bomb thus costs at most its bound in memory and time, not what it inflates to.
 * Corrupt data rejects with CorruptData, for the caller to answer as its route does.
 */
export function inflate(data: Buffer, compression: Compression, limits: InflateLimits): Promise<Buffer> {
  const ratioBound = Math.max(INFLATE_RATIO_FROM_BYTES, data.length * MAX_INFLATE_RATIO)
  return new Promise((resolve, reject) => {
    const stream = inflaters[compression]()
    const chunks: Buffer[] = []
    let length = 0
    let refused = false
    stream.on('data', (chunk: Buffer) => {
      if (refused) return
      length += chunk.length
      const over = length > limits.maxBytes ? `more than ${byteSize(limits.maxBytes)}`
        : length > ratioBound ? `more than ${MAX_INFLATE_RATIO} times its ${data.length} bytes`
          : !limits.budget.take(chunk.length) ? `beyond the ${byteSize(limits.budget.total)} one request may inflate in all`
            : null
      if (over !== null) {
        refused = true
        stream.destroy()
        reject(new AppError(413, 'payload_too_large', `${limits.what} inflates to ${over}: ${limits.outcome ?? 'nothing of the request was stored'}`))
        return
      }
      chunks.push(chunk)
    })
    stream.on('error', (error) => { reject(new CorruptData(error.message)) })
    stream.on('end', () => { resolve(Buffer.concat(chunks, length)) })
    stream.end(data)
  })
}

/**
 * The start of the inflated data up to its first line feed, or its first `maxBytes` bytes when no line ends
 * sooner: what is needed to read an envelope's header without inflating the rest. Corrupt data rejects with
 * CorruptData.
 */
export function inflateFirstLine(data: Buffer, compression: Compression, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stream = inflaters[compression]()
    const chunks: Buffer[] = []
    let length = 0
    const done = () => {
      stream.destroy()
      const head = Buffer.concat(chunks, length)
      const newline = head.indexOf(0x0a)
      resolve(head.subarray(0, newline < 0 ? Math.min(length, maxBytes) : newline))
    }
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      length += chunk.length
      if (chunk.includes(0x0a) || length >= maxBytes) done()
    })
    stream.on('error', (error) => { reject(new CorruptData(error.message)) })
    stream.on('end', done)
    stream.end(data)
  })
}
