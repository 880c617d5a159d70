import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { vitalBucket } from '../../../common/vitals.ts'
import { pageOf } from '../../../src/pages/index.ts'
import { MAX_PAGE_LENGTH } from '../../../src/pages/limits.ts'
import { planDays } from '../../../src/pages/read.ts'
import { summarize } from '../../../src/pages/service.ts'

const histogram = (values: number[]) => {
  const h = new Map<number, number>()
  for (const v of values) h.set(vitalBucket(v), (h.get(vitalBucket(v)) ?? 0) + 1)
  return h
}

describe('pages: summaries, day plans and templates', () => {
  it('p75 is the nearest rank over the buckets: the smallest holding 75% of the values', () => {
    assert.equal(summarize('LCP', histogram([1000, 2000, 3000, 5000])).p75, 3000)
    assert.equal(summarize('LCP', histogram([1000, 2000, 3000])).p75, 3000, '0.75 × 3 = 2.25: the third value')
    assert.equal(summarize('LCP', histogram([1000, 1000, 1000, 9000])).p75, 1000)
    assert.equal(summarize('INP', histogram([41])).p75, 45)
    // Rounded up to the next step (VITAL_STEPS): above the exact p75 by at most 20%, never below.
    assert.equal(summarize('LCP', histogram([1001, 1002, 1003, 1004])).p75, 1200)
    assert.equal(summarize('CLS', histogram([0, 0, 0.0123, 0.31])).p75, 0.015)
  })

  it('counts the ratings exactly from the buckets and skips buckets a subtraction left empty', () => {
    const h = histogram([2500, 2501, 4000, 4001, 100])
    h.set(9900, 0)
    assert.deepEqual(summarize('LCP', h), { p75: 4000, good: 2, needsImprovement: 2, poor: 1 })
    assert.deepEqual(summarize('TTFB', undefined), { p75: null, good: 0, needsImprovement: 0, poor: 0 })
    assert.deepEqual(summarize('FCP', new Map([[1800, 0]])), { p75: null, good: 0, needsImprovement: 0, poor: 0 })
  })

  it('reads a range from its days, or from the totals less the days outside it, whichever is fewer', () => {
    const stored = { first: 100, last: 129 }
    assert.deepEqual(planDays(stored, 110, 110), { totals: false, days: [[110, 110]] })
    assert.deepEqual(planDays(stored, 100, 114), { totals: false, days: [[100, 114]] })
    assert.deepEqual(planDays(stored, -Infinity, Infinity), { totals: true, days: [] })
    assert.deepEqual(planDays(stored, 102, 128), { totals: true, days: [[100, 101], [129, 129]] })
    assert.deepEqual(planDays(stored, 90, 99), null)
    assert.deepEqual(planDays(stored, 130, Infinity), null)
  })

  it('a page is its URL\'s template, cut to the bound without splitting a character', () => {
    assert.equal(pageOf('https://Shop.example/orders/1234?tab=2#x'), 'https://shop.example/orders/:id')
    assert.equal(pageOf('/checkout/5f3a9c2e-1b4d-4e8f-9a7b-2c6d8e0f1a3b/pay'), '/checkout/:id/pay')
    const emoji = `/${'a'.repeat(MAX_PAGE_LENGTH - 2)}😀😀`
    assert.equal(pageOf(emoji), `/${'a'.repeat(MAX_PAGE_LENGTH - 2)}`, 'the pair that would be split is left out')
    assert.equal(pageOf(`/${'b'.repeat(MAX_PAGE_LENGTH + 10)}`).length, MAX_PAGE_LENGTH)
    const docs = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8').replaceAll('\n', ' ')
    assert.ok(docs.includes(`the template is cut to ${MAX_PAGE_LENGTH} characters`), 'docs/api.md states the bound')
  })
})
