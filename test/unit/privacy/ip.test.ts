import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CountryLookup } from '../../../src/geo/country.ts'
import { normalizeIp } from '../../../src/geo/country.ts'
import { visitorOf } from '../../../src/ingest/service.ts'
import { canonicalIp, storedIp, truncateIp } from '../../../src/privacy/ip.ts'
import { eraseMatch } from '../../../src/privacy/service.ts'

describe('IP storage', () => {
  it('truncates IPv4 to its /24', () => {
    assert.equal(truncateIp('203.0.113.77'), '203.0.113.0')
    assert.equal(truncateIp('8.8.8.8'), '8.8.8.0')
    assert.equal(truncateIp('203.0.113.0'), '203.0.113.0', 'a network address stays as it is')
  })

  it('truncates IPv6 to its /48, written in its short form', () => {
    assert.equal(truncateIp('2001:db8:85a3:8d3:1319:8a2e:370:7348'), '2001:db8:85a3::')
    assert.equal(truncateIp('2a02:6b8::feed:ff'), '2a02:6b8::')
    assert.equal(truncateIp('2001:DB8:1:FFFF::1'), '2001:db8:1::')
  })

  it('reads an IPv4 address mapped into IPv6 as IPv4 first, so its last byte is dropped rather than kept', () => {
    assert.equal(truncateIp('::ffff:203.0.113.77'), '203.0.113.0')
    assert.equal(truncateIp('::ffff:cb00:714d'), '203.0.113.0', 'the hex spelling of the same address')
    assert.equal(storedIp(normalizeIp('::ffff:198.51.100.9'), 'truncated'), '198.51.100.0')
  })

  it('stores all, the network part, or nothing; what is no address is not stored truncated', () => {
    assert.equal(storedIp('203.0.113.77', 'full'), '203.0.113.77')
    assert.equal(storedIp('203.0.113.77', 'truncated'), '203.0.113.0')
    assert.equal(storedIp('203.0.113.77', 'none'), null)
    assert.equal(storedIp(null, 'full'), null)
    assert.equal(storedIp('unknown', 'truncated'), null, 'a proxy may put anything in X-Forwarded-For: nothing of it is kept')
    assert.equal(storedIp('unknown', 'full'), 'unknown', 'full stores what it received, as before')
  })

  it('derives the country from the full address before the project\'s IP storage cuts it', () => {
    // A lookup that knows only the full address: a country found from the truncated one would be null.
    const asked: (string | null)[] = []
    const geo: CountryLookup = { country: (ip) => { asked.push(ip); return ip === '203.0.113.77' ? 'NZ' : null } }
    assert.deepEqual(visitorOf('203.0.113.77', 'UA', geo, 'truncated'), { ip: '203.0.113.0', country: 'NZ', userAgent: 'UA' })
    assert.deepEqual(visitorOf('203.0.113.77', null, geo, 'none'), { ip: null, country: 'NZ', userAgent: null })
    assert.deepEqual(visitorOf('203.0.113.77', null, geo, 'full'), { ip: '203.0.113.77', country: 'NZ', userAgent: null })
    assert.deepEqual(asked, ['203.0.113.77', '203.0.113.77', '203.0.113.77'])
  })

  it('writes a typed address as the service stores one, and refuses what is no address', () => {
    assert.equal(canonicalIp(' 203.0.113.7 '), '203.0.113.7')
    assert.equal(canonicalIp('2001:DB8:0:0:0:0:0:1'), '2001:db8::1')
    assert.equal(canonicalIp('::ffff:203.0.113.7'), '203.0.113.7')
    for (const bad of ['', 'localhost', '203.0.113', '0x7f.0.0.1', '203.0.113.007', '1.2.3.4/24', '2001:db8::g']) {
      assert.equal(canonicalIp(bad), null, bad)
    }
  })
})

describe('erase requests', () => {
  it('name exactly one selector, and an IP address in its stored form', () => {
    assert.deepEqual(eraseMatch({ sessionId: 's1' }), { sessionId: 's1' })
    assert.deepEqual(eraseMatch({ userId: 'u1' }), { userId: 'u1' })
    assert.deepEqual(eraseMatch({ ip: '2001:DB8::0:1' }), { ip: '2001:db8::1' })
    assert.throws(() => eraseMatch({}), /exactly one of sessionId, ip and userId \(got none\)/)
    assert.throws(() => eraseMatch({ userId: 'u1', ip: '203.0.113.7' }), /got ip and userId/)
    assert.throws(() => eraseMatch({ ip: '300.1.2.3' }), (error: unknown) =>
      error instanceof Error && /ip must be an IPv4 or IPv6 address/.test(error.message) && (error as { parameter?: string }).parameter === 'ip')
  })
})
