import assert from 'node:assert/strict'
import fs from 'node:fs'
import { describe, it } from 'node:test'
import { bundledCountryDb, normalizeIp, openCountryLookup } from '../../../src/geo/country.ts'

describe('country lookup', () => {
  const geo = openCountryLookup(null)
  it('maps public IPv4 and IPv6 addresses to ISO 3166 alpha-2 codes', () => {
    assert.equal(geo.country('8.8.8.8'), 'US')
    assert.equal(geo.country('77.88.8.8'), 'RU')
    assert.equal(geo.country('2a02:6b8::feed:ff'), 'RU')
  })
  it('is null for private, loopback, unknown and malformed addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '192.168.0.1', '::1', 'not-an-ip', '', null]) assert.equal(geo.country(ip), null, String(ip))
  })
  it('opens a database given by path, and fails clearly for a bad one', () => {
    assert.equal(openCountryLookup(bundledCountryDb()).country('8.8.8.8'), 'US')
    assert.throws(() => openCountryLookup('/nonexistent/file.mmdb'), /GEOIP_DB: cannot read an MMDB database/)
    const junk = `${fs.mkdtempSync('/tmp/sw-geo-')}/junk.mmdb`
    fs.writeFileSync(junk, 'not an mmdb')
    assert.throws(() => openCountryLookup(junk), /GEOIP_DB/)
  })
  it('reads IPv4-mapped IPv6 addresses as IPv4', () => {
    assert.equal(normalizeIp('::ffff:8.8.8.8'), '8.8.8.8')
    assert.equal(normalizeIp('2001:db8::1'), '2001:db8::1')
    assert.equal(normalizeIp(undefined), null)
  })
})
