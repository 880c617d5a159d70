import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractUtm } from '../../../src/ingest/enrich.ts'

describe('extractUtm', () => {
  it('keeps utm_* tags and ad click ids, drops other parameters', () => {
    assert.deepEqual(extractUtm('https://shop.example/p?utm_source=ya&utm_medium=cpc&utm_term=a%20b&yclid=1&gclid=2&fbclid=3&msclkid=4&q=x'),
      { utm_source: 'ya', utm_medium: 'cpc', utm_term: 'a b', yclid: '1', gclid: '2', fbclid: '3', msclkid: '4' })
  })
  it('lower-cases names, keeps the first of repeated tags, skips empty values', () => {
    assert.deepEqual(extractUtm('https://x/?UTM_Source=a&utm_source=b&utm_medium='), { utm_source: 'a' })
  })
  it('is null without tags or without a URL', () => {
    assert.equal(extractUtm('https://x/?q=1'), null)
    assert.equal(extractUtm('not a url'), null)
    assert.equal(extractUtm(null), null)
    assert.equal(extractUtm(undefined), null)
  })
  it('bounds the number and length of tags', () => {
    const params = Array.from({ length: 50 }, (_, i) => `utm_k${i}=${'v'.repeat(1000)}`).join('&')
    const tags = extractUtm(`https://x/?${params}`) ?? {}
    assert.equal(Object.keys(tags).length, 32)
    assert.ok(Object.values(tags).every((v) => v.length === 512))
  })
})
