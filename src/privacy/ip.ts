import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { IP_STORAGE_MODES } from '../../common/limits.ts'

/** How much of a visitor's IP address a project stores (common/limits.ts IP_STORAGE_MODES). */
export type IpStorage = (typeof IP_STORAGE_MODES)[number]

export const isIpStorage = (value: string): value is IpStorage => (IP_STORAGE_MODES as readonly string[]).includes(value)

/** Bytes kept of a truncated address: an IPv4 /24, an IPv6 /48 (a site, in RFC 6177's terms). */
const KEPT_BYTES = { ipv4: 3, ipv6: 6 } as const

/**
 * `ip` parsed, with an IPv4 address mapped into IPv6 (`::ffff:1.2.3.4`, what a dual-stack socket reports) read
 * as the IPv4 address it is: truncating it as IPv6 would keep all of it, since the address sits in the last bytes.
 * Null when it is no address (a proxy may put anything in X-Forwarded-For).
 */
function parse(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (isIP(ip.replace(/%.*$/, '')) === 0) return null
  const address = ipaddr.parse(ip)
  return address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() ? address.toIPv4Address() : address
}

/** The network part of an address: IPv4 to its /24 (`203.0.113.0`), IPv6 to its /48 (`2001:db8:85a3::`); null for no address. */
export function truncateIp(ip: string): string | null {
  const address = parse(ip)
  if (address === null) return null
  const bytes = address.toByteArray()
  const kept = KEPT_BYTES[address.kind()]
  return ipaddr.fromByteArray(bytes.map((b, i) => (i < kept ? b : 0))).toString()
}

/**
 * What a project keeps of a visitor's address (already normalized, src/geo/country.ts normalizeIp): all of it,
 * its network part, or nothing. `full` stores the address as received, as before there was a choice, so the
 * common path parses nothing.
 */
export function storedIp(ip: string | null, storage: IpStorage): string | null {
  if (ip === null || storage === 'none') return null
  return storage === 'full' ? ip : truncateIp(ip)
}

/**
 * An address a person typed (to erase a visitor's data), written as the service stores one: IPv4 dotted, IPv6
 * in its short lowercase form (RFC 5952, `2001:db8::1`), a mapped IPv4 as IPv4. Null when it is no IP address;
 * the forms Node's parser refuses (`1.2.3`, `0x7f.1`, leading zeros) are refused too.
 */
export function canonicalIp(typed: string): string | null {
  return parse(typed.trim())?.toString() ?? null
}
