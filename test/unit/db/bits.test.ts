import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { andBits, andNot, BITS_PER_CHUNK, bitOf, bitsWith, CHUNK_BYTES, chunkOf, collectBits, countAnd, or } from '../../../src/db/bits.ts'

describe('term bitmaps (SQLite\'s functions; PostgreSQL has its own)', () => {
  it('numbers a chunk\'s bits as PostgreSQL\'s bit strings do: bit 0 is the first byte\'s highest', () => {
    // PostgreSQL: set_bit(cast(B'0' as bit(8192)), 0, 1) is x'80…', set_bit(…, 9, 1) is x'0040…'.
    assert.deepEqual([...bitsWith([0]).subarray(0, 2)], [0x80, 0])
    assert.deepEqual([...bitsWith([9]).subarray(0, 2)], [0, 0x40])
    assert.equal(bitsWith([]).length, CHUNK_BYTES)
  })

  it('places a visit number in its chunk and bit', () => {
    assert.deepEqual([chunkOf(0), bitOf(0)], [0, 0])
    assert.deepEqual([chunkOf(BITS_PER_CHUNK - 1), bitOf(BITS_PER_CHUNK - 1)], [0, BITS_PER_CHUNK - 1])
    assert.deepEqual([chunkOf(BITS_PER_CHUNK * 3 + 5), bitOf(BITS_PER_CHUNK * 3 + 5)], [3, 5])
  })

  it('counts the bits every chunk has, any number of chunks; SQL null counts nothing', () => {
    const a = bitsWith([1, 2, 3, 100, 8191])
    const b = bitsWith([2, 3, 4, 8191])
    const c = bitsWith([3, 8191, 7])
    assert.equal(countAnd(a), 5)
    assert.equal(countAnd(a, b), 3)
    assert.equal(countAnd(a, b, c), 2)
    assert.equal(countAnd(a, null), 0)
    assert.equal(countAnd(), 0)
  })

  it('sets and clears bits, leaving the others', () => {
    const a = bitsWith([1, 5, 9])
    assert.deepEqual(or(a, bitsWith([2, 9])), bitsWith([1, 2, 5, 9]))
    assert.deepEqual(or(null, bitsWith([2])), bitsWith([2]))
    assert.deepEqual(andNot(a, bitsWith([5, 7])), bitsWith([1, 9]))
    assert.deepEqual(andNot(a, null), a)
  })

  it('gathers a chunk from its visits\' bits, as the migration fills term_bits', () => {
    let chunk = collectBits.start()
    for (const n of [4, 4000, 4]) chunk = collectBits.step(chunk, n)
    chunk = collectBits.step(chunk, BigInt(8000))
    assert.deepEqual(chunk, bitsWith([4, 4000, 8000]))
    assert.deepEqual(collectBits.start(), bitsWith([]), 'each group starts from a chunk of its own')
  })

  it('ANDs a group\'s chunks, as PostgreSQL\'s bit_and', () => {
    const a = bitsWith([1, 2, 3])
    let acc = andBits.start()
    for (const c of [a, bitsWith([2, 3]), bitsWith([3, 9])]) acc = andBits.step(acc, c)
    assert.deepEqual(acc, bitsWith([3]))
    assert.deepEqual(a, bitsWith([1, 2, 3]), 'the first chunk is copied, not changed')
    assert.equal(andBits.start(), null)
  })
})
