import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { errorEvent, fingerprintOf, messageOf } from '../../../../browser/sdk/errors.ts'

/** Values a page can throw that break naive code: no prototype, throwing getters, cycles. */
const cyclic: Record<string, unknown> = { code: 7 }
cyclic.self = cyclic
const bare = Object.create(null) as object
const hostile = new Proxy({}, { get() { throw new Error('trap') } })

describe('SDK error events', () => {
  it('records an Error with its type, message and stack, and the fingerprint', () => {
    const error = new TypeError('Order 42 has no items')
    assert.deepEqual(errorEvent(error, { fingerprint: 'checkout' }, 'https://shop.example/cart'), {
      type: 'ERROR', message: 'TypeError: Order 42 has no items', stack: error.stack, url: 'https://shop.example/cart', fingerprint: 'checkout',
    })
  })
  it('joins an array fingerprint with spaces, and leaves out an empty or unreadable one', () => {
    assert.equal(fingerprintOf({ fingerprint: ['checkout', 'pro', 'eu'] }), 'checkout pro eu')
    for (const [i, options] of [undefined, null, 'checkout', {}, { fingerprint: '' }, { fingerprint: [] }, { fingerprint: 42 }, hostile].entries()) {
      assert.equal(fingerprintOf(options), undefined, `case ${i}`)
    }
  })
  it('turns any thrown value into a message without throwing', () => {
    const cases: [unknown, string][] = [
      [undefined, 'undefined'], [null, 'null'], ['out of stock', 'out of stock'], [42, '42'], [Symbol('s'), 'Symbol(s)'],
      [{ message: 'plain object' }, 'plain object'], [new Error(''), 'Error'], [cyclic, '[object Object]'],
      [bare, 'Error (unprintable value)'], [hostile, 'Error (unprintable value)'],
    ]
    for (const [value, message] of cases) assert.equal(messageOf(value), message)
  })
  it('records values without a stack, or with a throwing one, with a null stack', () => {
    const throwingStack = new Error('x')
    Object.defineProperty(throwingStack, 'stack', { get() { throw new Error('no') } })
    for (const value of [undefined, 'out of stock', cyclic, bare, hostile, throwingStack]) {
      const event = errorEvent(value, undefined, 'https://shop.example/')
      assert.equal(event.type, 'ERROR')
      assert.equal(event.stack, null)
      assert.equal(typeof event.message, 'string')
    }
  })
})
