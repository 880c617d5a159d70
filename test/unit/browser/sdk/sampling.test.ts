import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { SessionStore } from '../../../../browser/sdk/core.ts'
import { isTrigger, markTriggered, planOf, type SampleOptions } from '../../../../browser/sdk/sampling.ts'

const memory = (): SessionStore & { items: Map<string, string> } => {
  const items = new Map<string, string>()
  return { items, getItem: (k) => items.get(k) ?? null, setItem: (k, v) => { items.set(k, v) }, removeItem: (k) => { items.delete(k) } }
}
const opts = (o: Partial<SampleOptions> = {}): SampleOptions => ({ record: true, recordSampleRate: 1, recordOnErrorSampleRate: 1, ...o })
/** A random source giving `values` in turn. */
const draws = (...values: number[]) => () => values.shift() ?? assert.fail('drew once too often')

describe('recording sample rates', () => {
  it('rates 1 and 0 decide alike whatever the draw', () => {
    assert.equal(planOf(memory(), 'k', opts(), draws(0.999999)).plan, 'whole')
    assert.equal(planOf(memory(), 'k', opts({ recordSampleRate: 0 }), draws(0, 0.999999)).plan, 'onError')
    assert.equal(planOf(memory(), 'k', opts({ recordSampleRate: 0, recordOnErrorSampleRate: 0 }), draws(0, 0)).plan, 'off')
    assert.equal(planOf(memory(), 'k', opts({ record: 'onError' }), draws(0, 0.5)).plan, 'onError', 'record: \'onError\' records no visit whole')
    assert.equal(planOf(memory(), 'k', opts({ record: false }), draws()).plan, 'off')
  })

  it('draws against each share', () => {
    assert.equal(planOf(memory(), 'k', opts({ recordSampleRate: 0.3 }), draws(0.29)).plan, 'whole')
    assert.equal(planOf(memory(), 'k', opts({ recordSampleRate: 0.3, recordOnErrorSampleRate: 0.5 }), draws(0.3, 0.49)).plan, 'onError')
    assert.equal(planOf(memory(), 'k', opts({ recordSampleRate: 0.3, recordOnErrorSampleRate: 0.5 }), draws(0.3, 0.5)).plan, 'off')
    assert.equal(planOf(memory(), 'k', opts({ recordSampleRate: Number.NaN }), draws(0.9)).plan, 'whole', 'a share that is not a number is the default, 1')
  })

  it('decides once per visit: its later pages read the plan, a new visit draws again', () => {
    const store = memory()
    assert.equal(planOf(store, 'visit1', opts({ recordSampleRate: 0.5 }), draws(0.7, 0.1)).plan, 'onError')
    assert.deepEqual(planOf(store, 'visit1', opts({ recordSampleRate: 0.5 }), draws()), { plan: 'onError', triggered: false })
    assert.equal(planOf(store, 'visit2', opts({ recordSampleRate: 0.5 }), draws(0.1)).plan, 'whole')
  })

  it('keeps that the visit had a trigger for its later pages', () => {
    const store = memory()
    planOf(store, 'v', opts({ record: 'onError' }), draws(0, 0))
    markTriggered(store, 'v', 'onError')
    assert.deepEqual(planOf(store, 'v', opts({ record: 'onError' }), draws()), { plan: 'onError', triggered: true })
  })

  it('draws on each page when storage is blocked or unreadable', () => {
    const blocked: SessionStore = { getItem: () => { throw new Error('blocked') }, setItem: () => { throw new Error('blocked') }, removeItem: () => undefined }
    assert.equal(planOf(blocked, 'k', opts(), draws(0.5)).plan, 'whole')
    const store = memory()
    store.items.set('sw_record', '{not json')
    assert.equal(planOf(store, 'k', opts({ recordSampleRate: 0 }), draws(0, 0)).plan, 'onError')
  })
})

describe('what makes a held recording leave', () => {
  it('an ERROR, a USER_REPORT, an HTTP_ERROR of 5xx or none; not a 4xx, nor other events', () => {
    assert.equal(isTrigger({ type: 'ERROR' }), true)
    assert.equal(isTrigger({ type: 'USER_REPORT' }), true)
    assert.equal(isTrigger({ type: 'HTTP_ERROR', statusCode: 500 }), true)
    assert.equal(isTrigger({ type: 'HTTP_ERROR', statusCode: 503 }), true)
    assert.equal(isTrigger({ type: 'HTTP_ERROR', statusCode: null }), true)
    assert.equal(isTrigger({ type: 'HTTP_ERROR', statusCode: 0 }), true)
    assert.equal(isTrigger({ type: 'HTTP_ERROR', statusCode: 404 }), false)
    assert.equal(isTrigger({ type: 'CONSOLE_ERROR' }), false)
    assert.equal(isTrigger({ type: 'SLOW_REQUEST', statusCode: 500 }), false)
  })
})
