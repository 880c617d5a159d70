import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { countTypes, KNOWN_TYPES, missingFields, TYPE_PATTERN } from '../../../src/contract/event-types.ts'

describe('countTypes', () => {
  it('counts ERROR and HTTP_ERROR as errors and SLOW_REQUEST as slow', () => {
    assert.deepEqual(countTypes(['ERROR', 'HTTP_ERROR', 'SLOW_REQUEST', 'CLICK', 'NAVIGATION', 'INPUT', 'USER_REPORT', 'CONSOLE_ERROR']),
      { total: 8, errors: 2, slow: 1 })
    assert.deepEqual(countTypes([]), { total: 0, errors: 0, slow: 0 })
  })
})

describe('missingFields', () => {
  it('names what a known type needs', () => {
    assert.deepEqual(missingFields('HTTP_ERROR', {}), ['url', 'method'])
    assert.deepEqual(missingFields('SLOW_REQUEST', { url: 'u', durationMs: null }), ['durationMs'])
    assert.deepEqual(missingFields('ERROR', { message: 'm' }), [])
  })
  it('requires nothing of further types', () => {
    assert.deepEqual(missingFields('CONSOLE_ERROR', {}), [])
  })
})

describe('TYPE_PATTERN', () => {
  it('accepts the known types and upper-case words', () => {
    const re = new RegExp(TYPE_PATTERN)
    for (const t of [...KNOWN_TYPES, 'CONSOLE_ERROR', 'A', 'WEB_VITAL_2']) assert.ok(re.test(t), t)
    for (const t of ['error', '_X', '1A', 'A-B', '']) assert.ok(!re.test(t), t)
  })
})
