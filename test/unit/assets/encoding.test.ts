import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { preferredEncoding } from '../../../src/assets/routes.ts'

describe('Accept-Encoding negotiation for the served scripts', () => {
  it('prefers brotli, then gzip, and sends neither when none is accepted', () => {
    assert.equal(preferredEncoding('gzip, deflate, br, zstd'), 'br')
    assert.equal(preferredEncoding('gzip, deflate'), 'gzip')
    assert.equal(preferredEncoding('GZIP'), 'gzip')
    assert.equal(preferredEncoding('deflate'), null)
    assert.equal(preferredEncoding(undefined), null)
    assert.equal(preferredEncoding(''), null)
  })

  it('honours q=0 and the wildcard', () => {
    assert.equal(preferredEncoding('br;q=0, gzip;q=0.5'), 'gzip')
    assert.equal(preferredEncoding('br;q=0, gzip;q=0'), null)
    assert.equal(preferredEncoding('*'), 'br')
    assert.equal(preferredEncoding('*;q=0, gzip'), 'gzip')
    assert.equal(preferredEncoding('identity'), null)
  })
})
