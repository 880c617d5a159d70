import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { timeOrderedId } from '../../../src/shared/ids.ts'

/** Byte order, as SQLite's BINARY collation and PostgreSQL's "C" compare the ids. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

describe('timeOrderedId', () => {
  it('is 16 URL-safe characters, as a random id of 12 bytes is', () => {
    for (let i = 0; i < 100; i++) assert.match(timeOrderedId(Date.now()), /^[A-Za-z0-9_-]{16}$/)
  })

  it('sorts by the time it was made, by bytes, across every digit of the time', () => {
    const times = [0, 1, 63, 64, 4095, 4096, Date.UTC(2026, 10, 27), Date.UTC(2026, 10, 27) + 1, Date.UTC(2026, 10, 27, 0, 0, 1), Date.UTC(2099, 0, 1), 2 ** 42 - 1]
    const ids = times.map((t) => timeOrderedId(t))
    assert.deepEqual([...ids].sort(byBytes), ids)
    for (let i = 0; i < 1000; i++) {
      const t = Math.floor(Math.random() * 2 ** 42)
      const u = t + 1 + Math.floor(Math.random() * 1000)
      assert.ok(byBytes(timeOrderedId(t), timeOrderedId(u)) < 0, `${t} before ${u}`)
    }
  })

  it('made in the same millisecond, differs by its random part', () => {
    const now = Date.now()
    const ids = new Set(Array.from({ length: 10_000 }, () => timeOrderedId(now)))
    assert.equal(ids.size, 10_000)
  })
})
