import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { timeOrderedId } from '../../../src/util/ids.ts'

/** Byte order, as SQLite's BINARY collation and PostgreSQL's "C" compare the ids. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))
const LATEST = 2 ** 42 - 1

describe('timeOrderedId', () => {
  it('is 16 URL-safe characters, as a random id of 12 bytes is, whatever the time', () => {
    for (const t of [Date.now(), 0, LATEST, -1, LATEST + 1, Number.NaN, 1.5]) assert.match(timeOrderedId(t), /^[A-Za-z0-9_-]{16}$/, String(t))
  })

  it('sorts by the millisecond it was made, by bytes, at every step of every digit of the time', () => {
    for (let position = 0; position < 7; position++) {
      for (let digit = 1; digit < 64; digit++) {
        const t = digit * 64 ** position
        assert.ok(byBytes(timeOrderedId(t - 1), timeOrderedId(t)) < 0, `${t - 1} before ${t}`)
      }
    }
    assert.ok(byBytes(timeOrderedId(LATEST - 1), timeOrderedId(LATEST)) < 0)
  })

  it('holds a clock outside 0 to 2^42 − 1 ms (2109-05-15) at its ends rather than wrapping', () => {
    const prefix = (t: number) => timeOrderedId(t).slice(0, 7)
    assert.equal(prefix(-5), prefix(0))
    assert.equal(prefix(Number.NaN), prefix(0))
    assert.equal(prefix(LATEST + 1), prefix(LATEST))
    assert.ok(byBytes(timeOrderedId(LATEST - 1), timeOrderedId(LATEST + 1_000)) < 0, 'later than every id before')
  })

  it('made in one millisecond, shares the time and differs by its random part', () => {
    const now = Date.now()
    const ids = Array.from({ length: 10_000 }, () => timeOrderedId(now))
    assert.equal(new Set(ids.map((id) => id.slice(0, 7))).size, 1)
    assert.equal(new Set(ids).size, 10_000)
  })
})
