import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { aggregateCounts, countsOf, outcomeOf, sessionOutcome, visitOutcome, worse } from '../../../src/releases/index.ts'

const error = (message: string) => ({ type: 'ERROR', message })

describe('release health: session status rules', () => {
  it('a Sentry session ends as its latest status says; errors make an ok or exited one errored', () => {
    assert.equal(sessionOutcome('ok', 0), 'healthy')
    assert.equal(sessionOutcome('exited', 0), 'healthy')
    assert.equal(sessionOutcome('exited', 3), 'errored')
    assert.equal(sessionOutcome('errored', 0), 'errored')
    assert.equal(sessionOutcome('crashed', 0), 'crashed')
    assert.equal(sessionOutcome('abnormal', 1), 'abnormal')
    assert.equal(sessionOutcome(undefined, '2'), 'healthy', 'a count that is not a number is no count')
  })

  it('a session is in one bucket at most, and its counts say its outcome back', () => {
    for (const outcome of ['healthy', 'errored', 'abnormal', 'crashed'] as const) {
      const c = countsOf(outcome)
      assert.equal(c.sessions, 1)
      assert.ok(c.errored + c.crashed + c.abnormal <= 1)
      assert.equal(outcomeOf(c), outcome)
    }
    assert.equal(worse('crashed', 'errored'), 'crashed')
    assert.equal(worse('healthy', 'errored'), 'errored')
  })

  it('an aggregate bucket counts exited as healthy sessions and ignores what is not a count', () => {
    assert.deepEqual(aggregateCounts({ exited: 5, errored: 2, crashed: 1, abnormal: 0 }), { sessions: 8, errored: 2, crashed: 1, abnormal: 0 })
    assert.deepEqual(aggregateCounts({ exited: -1, errored: 1.5, crashed: '3' }), { sessions: 0, errored: 0, crashed: 0, abnormal: 0 })
  })

  it('our SDK\'s visit: crashed by an uncaught error or unhandled rejection, errored by a captured one', () => {
    assert.equal(visitOutcome([{ type: 'CLICK', message: 'Uncaught' }]), 'healthy')
    assert.equal(visitOutcome([error('TypeError: x')]), 'errored')
    assert.equal(visitOutcome([error('TypeError: x'), error('Uncaught TypeError: y')]), 'crashed')
    assert.equal(visitOutcome([error('Unhandled rejection: Error: z')]), 'crashed')
    assert.equal(visitOutcome([error('uncaught exception: oops')]), 'crashed')
    assert.equal(visitOutcome([error('Script error.')]), 'crashed')
    assert.equal(visitOutcome([error('Script error in checkout')]), 'errored')
  })
})
