import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_CURSOR_LENGTH } from '../../../src/util/limits.ts'
import { MAX_SESSION_ID_LENGTH } from '../../../src/contract/limits.ts'
import { AppError } from '../../../src/errors.ts'
import { listScope, makeCursor, nextCursor, pageStart, readCursor } from '../../../src/util/cursor.ts'

const scope = listScope('sessions', 'p1', [{ from: 1 }, { terms: ['errors'] }])
const SHAPE = ['integer', 'string'] as const

/** The 400 a bad `after` answers, with the parameter it names. */
function refusal(fn: () => unknown): { parameter: string | undefined; message: string } {
  try {
    fn()
  } catch (error) {
    assert.ok(error instanceof AppError, String(error))
    assert.equal(error.statusCode, 400)
    return { parameter: error.parameter, message: error.message }
  }
  assert.fail('expected a 400')
}

describe('list cursors', () => {
  it('read back the position and key they were made with, as URL-safe text', () => {
    const cursor = makeCursor(scope, 150, [1_764_000_000_123, 'sess-é"\\'])
    assert.match(cursor, /^[A-Za-z0-9_-]+$/)
    assert.deepEqual(readCursor(scope, cursor, SHAPE), { position: 150, key: [1_764_000_000_123, 'sess-é"\\'] })
  })

  it('fit MAX_CURSOR_LENGTH with the longest session id', () => {
    const cursor = makeCursor(scope, Number.MAX_SAFE_INTEGER, [Number.MAX_SAFE_INTEGER, 'x'.repeat(MAX_SESSION_ID_LENGTH)])
    assert.ok(cursor.length <= MAX_CURSOR_LENGTH, `${cursor.length} characters`)
  })

  it('are bound to their list: the same filters give the same scope, others, another project or kind another', () => {
    assert.equal(listScope('sessions', 'p1', [{ from: 1 }, { terms: ['errors'] }]), scope)
    for (const other of [listScope('sessions', 'p1', [{ from: 2 }, { terms: ['errors'] }]), listScope('sessions', 'p2', [{ from: 1 }, { terms: ['errors'] }]),
      listScope('issues', 'p1', [{ from: 1 }, { terms: ['errors'] }])]) {
      assert.notEqual(other, scope)
      const { parameter, message } = refusal(() => readCursor(other, makeCursor(scope, 50, [1, 'a']), SHAPE))
      assert.equal(parameter, 'after')
      assert.match(message, /other filters/)
    }
  })

  it('refuse what this service did not make, naming after', () => {
    const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    for (const raw of ['not a cursor!', 'x'.repeat(MAX_CURSOR_LENGTH + 1), json({ a: 1 }), Buffer.from('[1,').toString('base64url'),
      json([2, scope, 50, 1, 'a']), json([1, scope, -1, 1, 'a']), json([1, scope, 1.5, 1, 'a']), json([1, scope, 50, '1', 'a']),
      json([1, scope, 50, 1, 2]), json([1, scope, 50, 1]), json([1, scope, 50, 1, 'a', 'b'])]) {
      const { parameter, message } = refusal(() => readCursor(scope, raw, SHAPE))
      assert.equal(parameter, 'after', raw)
      assert.match(message, /^after must be the `next` cursor of an earlier answer/)
    }
  })

  it('next: null on a short page, on the last full page of the total, and on an empty one', () => {
    const rows = [{ t: 3, id: 'c' }, { t: 2, id: 'b' }]
    const key = (r: { t: number; id: string }) => [r.t, r.id]
    assert.equal(nextCursor(scope, 0, 3, 10, rows, key), null, 'short page')
    assert.equal(nextCursor(scope, 8, 2, 10, rows, key), null, 'the total reached')
    assert.equal(nextCursor(scope, 0, 2, 10, [], key), null, 'empty')
    const next = nextCursor(scope, 4, 2, 10, rows, key)
    assert.ok(next !== null)
    assert.deepEqual(readCursor(scope, next, SHAPE), { position: 6, key: [2, 'b'] })
  })

  it('a page starts at offset, or after a cursor, never both', () => {
    assert.deepEqual(pageStart(scope, { offset: 20 }, SHAPE), { position: 20, page: { limit: 50, offset: 20 } })
    assert.deepEqual(pageStart(scope, {}, SHAPE), { position: 0, page: { limit: 50, offset: 0 } })
    const cursor = makeCursor(scope, 50, [9, 'z'])
    assert.deepEqual(pageStart(scope, { offset: 0, after: cursor, limit: 10 }, SHAPE), { position: 50, page: { limit: 10, offset: 0, after: [9, 'z'] } })
    assert.equal(refusal(() => pageStart(scope, { offset: 10, after: cursor }, SHAPE)).parameter, 'offset')
  })
})
