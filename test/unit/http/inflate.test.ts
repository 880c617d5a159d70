import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import { INFLATE_RATIO_FROM_BYTES, MAX_INFLATE_RATIO } from '../../../src/contract/limits.ts'
import { CorruptData, inflate, InflateBudget, inflateFirstLine, type Compression } from '../../../src/http/inflate.ts'

const tooLarge = (what: RegExp) => (error: { statusCode?: number; code?: string; message?: string }) =>
  error.statusCode === 413 && error.code === 'payload_too_large' && what.test(error.message ?? '')

/** Data that compresses about as well as real text: a few repeating words with numbers between them. */
const text = (bytes: number) => Buffer.from(Array.from({ length: bytes / 8 }, (_, i) => `w${(i * 7919) % 100_000}`.padEnd(8, ' ')).join('')).subarray(0, bytes)

describe('inflate', () => {
  const compressors: Record<Compression, (data: Buffer) => Buffer> = {
    gzip: gzipSync, deflate: deflateSync, 'deflate-raw': deflateRawSync, br: brotliCompressSync,
  }
  it('inflates gzip, zlib, raw deflate and brotli data within its bounds', async () => {
    const data = text(100_000)
    for (const [compression, compress] of Object.entries(compressors)) {
      const out = await inflate(compress(data), compression as Compression, { maxBytes: 1 << 20, budget: new InflateBudget(1 << 20), what: 'The body' })
      assert.ok(out.equals(data), compression)
    }
  })

  it('refuses output over maxBytes, naming what and the bound', async () => {
    await assert.rejects(inflate(gzipSync(text(200_000)), 'gzip', { maxBytes: 100_000, budget: new InflateBudget(1 << 20), what: 'recording[1].data' }),
      tooLarge(/^recording\[1\]\.data inflates to more than 100000 bytes/))
  })

  it(`refuses data that inflates more than ${MAX_INFLATE_RATIO} times its size once past ${INFLATE_RATIO_FROM_BYTES} bytes`, async () => {
    const zeros = Buffer.alloc(4 * INFLATE_RATIO_FROM_BYTES)
    const limits = { maxBytes: 1 << 30, budget: new InflateBudget(1 << 30), what: 'The envelope' }
    await assert.rejects(inflate(gzipSync(zeros), 'gzip', limits), tooLarge(new RegExp(`more than ${MAX_INFLATE_RATIO} times`)))
    // Small output is not judged by its ratio.
    assert.equal((await inflate(gzipSync(Buffer.alloc(INFLATE_RATIO_FROM_BYTES)), 'gzip', limits)).length, INFLATE_RATIO_FROM_BYTES)
  })

  it('draws every inflation of a request from one budget', async () => {
    const budget = new InflateBudget(250_000)
    const limits = { maxBytes: 200_000, budget, what: 'The chunk' }
    await inflate(gzipSync(text(100_000)), 'gzip', limits)
    await inflate(gzipSync(text(100_000)), 'gzip', limits)
    await assert.rejects(inflate(gzipSync(text(100_000)), 'gzip', limits), tooLarge(/beyond the 250000 bytes one request may inflate in all/))
  })

  it('stops a bomb as soon as it crosses a bound, without inflating the rest', async () => {
    // 1 GiB of zeros in ~1 MiB of gzip: inflated whole it would take seconds and a gigabyte.
    const chunk = gzipSync(Buffer.alloc(64 << 20))
    const bomb = Buffer.concat(Array.from({ length: 16 }, () => chunk))
    const started = performance.now()
    await assert.rejects(inflate(bomb, 'gzip', { maxBytes: 16 << 20, budget: new InflateBudget(32 << 20), what: 'The body' }), tooLarge(/more than/))
    assert.ok(performance.now() - started < 2000, `took ${performance.now() - started} ms`)
  })

  it('rejects corrupt data as CorruptData', async () => {
    await assert.rejects(inflate(Buffer.from('not gzip at all'), 'gzip', { maxBytes: 1000, budget: new InflateBudget(1000), what: 'x' }), CorruptData)
  })
})

describe('inflateFirstLine', () => {
  it('gives the first line alone, or the first maxBytes bytes when no line ends sooner', async () => {
    const envelope = Buffer.concat([Buffer.from('{"dsn":"https://k@h/1"}\n'), Buffer.alloc(64 << 20, 0x20)])
    assert.equal((await inflateFirstLine(gzipSync(envelope), 'gzip', 65_536)).toString(), '{"dsn":"https://k@h/1"}')
    assert.equal((await inflateFirstLine(gzipSync(Buffer.alloc(1 << 20, 0x61)), 'gzip', 65_536)).length, 65_536)
    assert.equal((await inflateFirstLine(gzipSync(Buffer.from('{}')), 'gzip', 65_536)).toString(), '{}')
  })
})
