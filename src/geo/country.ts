import fs from 'node:fs'
import { createRequire } from 'node:module'
import { BlockList, isIP } from 'node:net'
import { Reader, type Response } from 'mmdb-lib'

/** Maps an IP to an ISO 3166 alpha-2 country. */
export interface CountryLookup {
  country(ip: string | null): string | null
}

/*
 * Bundled: ip-location-db's geo-whois-asn-country (CC0-1.0), built from RIR whois and ASN data.
 * GEOIP_DB swaps in any MMDB with country data: MaxMind GeoLite2-Country/City or DB-IP Lite.
 */
const require = createRequire(import.meta.url)
export const bundledCountryDb = (): string =>
  require.resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb')

/** ip-location-db records carry `country_code`; MaxMind and DB-IP records carry `country.iso_code`. */
interface CountryRecord {
  country_code?: string
  country?: { iso_code?: string }
}

const readers = new Map<string, Reader<Response>>()

/*
 * Private, loopback, link-local, shared and multicast ranges locate nobody; whois-derived
 * databases still map some of them to the registry's country, so they are excluded first.
 */
const NOT_PUBLIC = new BlockList()
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 3]] as const) NOT_PUBLIC.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of [['::', 127], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) NOT_PUBLIC.addSubnet(net, prefix, 'ipv6')

const isPublic = (ip: string, family: number): boolean => !NOT_PUBLIC.check(ip, family === 4 ? 'ipv4' : 'ipv6')

/** Opens an MMDB file once per process; a missing or unreadable file is a start-up error. */
export function openCountryLookup(file: string | null): CountryLookup {
  const path = file ?? bundledCountryDb()
  let reader = readers.get(path)
  if (!reader) {
    try {
      reader = new Reader<Response>(fs.readFileSync(path))
    } catch (error) {
      throw new Error(`GEOIP_DB: cannot read an MMDB database at ${path}: ${(error as Error).message}`, { cause: error })
    }
    readers.set(path, reader)
  }
  const db = reader
  return {
    country(ip) {
      const family = ip === null ? 0 : isIP(ip)
      if (ip === null || family === 0 || !isPublic(ip, family)) return null
      try {
        // The record shape depends on the file's vendor; both known shapes are read below.
        const record = db.get(ip) as CountryRecord | null
        const code = record?.country_code ?? record?.country?.iso_code
        return code && /^[A-Za-z]{2}$/.test(code) ? code.toUpperCase() : null
      } catch {
        return null
      }
    },
  }
}

/** `::ffff:1.2.3.4` (an IPv4 client on a dual-stack socket) reads as `1.2.3.4`. */
export const normalizeIp = (ip: string | undefined): string | null => {
  if (!ip) return null
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  return mapped?.[1] ?? ip
}
