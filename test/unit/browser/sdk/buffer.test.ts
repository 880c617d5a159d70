import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CARRY_KEY, carryIndex, CHUNK_PREFIX, clearCarry, fromBinary, makeHeld, readCarry, toBinary, type Held } from '../../../../browser/sdk/buffer.ts'

/** A chunk of `size` bytes at `at` seconds, opening a snapshot when `full`. */
const chunk = (id: string, at: number, full: boolean, size = 10): Held => ({ id, at: at * 1000, full, data: 'x'.repeat(size) })
const ids = (chunks: Held[]) => chunks.map((c) => c.id)

describe('the held recording of record: \'onError\'', () => {
  it('keeps two segments: the oldest goes only once the next one alone reaches keepMs back', () => {
    const held = makeHeld(60_000, 1_000_000)
    held.add(chunk('a0', 0, true), 0)
    held.add(chunk('a1', 30, false), 30_000)
    held.add(chunk('b0', 60, true), 60_000)
    held.add(chunk('b1', 90, false), 90_000)
    assert.deepEqual(ids(held.chunks()), ['a0', 'a1', 'b0', 'b1'], 'at 90 s the newer segment reaches back 30 s only')
    held.prune(119_999)
    assert.equal(held.chunks().length, 4)
    held.prune(120_000)
    assert.deepEqual(ids(held.chunks()), ['b0', 'b1'], 'at 120 s the newer segment alone holds the last 60 s')
    held.add(chunk('c0', 120, true), 120_000)
    held.add(chunk('c1', 170, false), 170_000)
    assert.deepEqual(ids(held.chunks()), ['b0', 'b1', 'c0', 'c1'], 'kept: from 60 s, 110 s back, never less than 60 s')
  })

  it('drops the oldest segment while the whole is over its bytes, never the newest', () => {
    const held = makeHeld(60_000, 100)
    held.add(chunk('a0', 0, true, 60), 0)
    held.add(chunk('b0', 1, true, 30), 1000)
    assert.deepEqual(ids(held.chunks()), ['a0', 'b0'])
    held.add(chunk('b1', 2, false, 30), 2000)
    assert.deepEqual(ids(held.chunks()), ['b0', 'b1'], '120 bytes: the oldest segment went')
    assert.equal(held.bytes(), 60)
    held.add(chunk('b2', 3, false, 80), 3000)
    assert.deepEqual(ids(held.chunks()), ['b0', 'b1', 'b2'], 'the only segment stays, over the bound')
  })

  it('drops a continuation with no snapshot before it', () => {
    const held = makeHeld(60_000, 1000)
    held.add(chunk('orphan', 0, false), 0)
    assert.deepEqual(held.chunks(), [])
    assert.equal(held.bytes(), 0)
  })

  it('is due a snapshot keepMs after the last, or once the newest segment holds half the bound', () => {
    const held = makeHeld(10_000, 100)
    assert.equal(held.due(9_999, 0), false)
    assert.equal(held.due(10_000, 0), true)
    held.add(chunk('a0', 0, true, 51), 0)
    assert.equal(held.due(1000, 0), true, 'over half the bound')
    assert.equal(held.due(1000, 500), false, 'a newer snapshot is still being compressed: not again')
  })

  it('empties on take, oldest first', () => {
    const held = makeHeld(60_000, 1000)
    held.add(chunk('a0', 0, true), 0)
    held.add(chunk('a1', 1, false), 1000)
    assert.deepEqual(ids(held.take()), ['a0', 'a1'])
    assert.deepEqual(held.chunks(), [])
    assert.equal(held.bytes(), 0)
  })
})

describe('carrying the held recording to the next page', () => {
  const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256)
  const chunks: Held[] = [
    { id: 'p-0', at: 1, full: true, data: toBinary(bytes) },
    { id: 'p-1', at: 2, full: false, data: '[{"type":3,"x":"\\n"}]', plain: true },
  ]
  const data = new Map(chunks.map((c) => [c.id, c.data]))

  it('reads back the chunks the index names for the same visit, bytes and plain JSON alike', () => {
    const back = readCarry(carryIndex('key1', chunks), 'key1', (id) => data.get(id) ?? null)
    assert.deepEqual(back, chunks)
    assert.deepEqual(fromBinary(back[0]?.data ?? ''), bytes)
  })

  it('reads up to the first chunk whose data is missing, and nothing of another visit or a broken index', () => {
    assert.deepEqual(ids(readCarry(carryIndex('key1', chunks), 'key1', (id) => (id === 'p-0' ? data.get(id) ?? null : null))), ['p-0'])
    assert.deepEqual(readCarry(carryIndex('key1', chunks), 'key2', (id) => data.get(id) ?? null), [])
    assert.deepEqual(readCarry('{not json', 'key1', () => 'x'), [])
    assert.deepEqual(readCarry(null, 'key1', () => 'x'), [])
  })

  it('clears the index and every carried chunk but those kept, leaving the page\'s own keys', () => {
    const items = new Map([[CARRY_KEY, '{}'], [`${CHUNK_PREFIX}a`, '1'], [`${CHUNK_PREFIX}b`, '2'], ['page-own', '3']])
    const storage = { get length() { return items.size }, key: (i: number) => [...items.keys()][i] ?? null, removeItem: (k: string) => { items.delete(k) } }
    clearCarry(storage, new Set(['b']))
    assert.deepEqual([...items.keys()], [`${CHUNK_PREFIX}b`, 'page-own'])
  })
})

describe('the held recording tells what it drops', () => {
  it('passes every chunk it drops, pruned or orphaned, so its stored copy goes too', () => {
    const gone: string[] = []
    const held = makeHeld(1000, 1_000_000, (chunks) => gone.push(...ids(chunks)))
    held.add(chunk('orphan', 0, false), 0)
    held.add(chunk('a0', 0, true), 0)
    held.add(chunk('a1', 0.5, false), 500)
    held.add(chunk('b0', 1, true), 1000)
    held.prune(2000)
    assert.deepEqual(gone, ['orphan', 'a0', 'a1'])
  })
})
