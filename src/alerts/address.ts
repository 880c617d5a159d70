import ipaddr from 'ipaddr.js'

/*
 * Which addresses a webhook may connect to. The ranges are ipaddr.js's (`range()`), not a list written here:
 * it names every special-purpose block of both families (loopback, private, link-local, CGNAT, unique-local,
 * IPv4-mapped, NAT64, multicast, documentation, …) and is maintained against the IANA registries, where a
 * hand-written list misses the block nobody thought of (NAT64 to 169.254.169.254, say). request-filtering-agent,
 * which enforces the same rule at connect time, uses the same ranges.
 */

/** What each non-public range is, for the reason a delivery records. */
const RANGE_NAMES: Record<string, string> = {
  loopback: 'a loopback address (this machine)',
  private: 'a private (LAN) address',
  linkLocal: 'a link-local address (cloud metadata lives here)',
  carrierGradeNat: 'a carrier-grade NAT address (some cloud metadata lives here)',
  uniqueLocal: 'a unique-local (private IPv6) address',
  unspecified: 'the unspecified address (it reaches this machine)',
  ipv4Mapped: 'an IPv4-mapped IPv6 address',
  rfc6052: 'a NAT64 address (it reaches the IPv4 address inside it)',
  rfc6145: 'an IPv4-translated address',
  '6to4': 'a 6to4 relay address',
  teredo: 'a Teredo tunnel address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved (special-purpose) address',
}

/**
 * Refused even with WEBHOOK_ALLOW_PRIVATE: link-local addresses (169.254.0.0/16, fe80::/10), where the cloud
 * metadata services of AWS, GCP, Azure and Oracle answer at 169.254.169.254; AWS's metadata over IPv6
 * (fd00:ec2::/32); Azure's wire server (168.63.129.16); Alibaba's metadata (100.100.100.200). No chat server lives
 * there, and they hand out the machine's cloud credentials.
 */
const ALWAYS_REFUSED: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [
  '169.254.0.0/16', 'fe80::/10', 'fd00:ec2::/32', '168.63.129.16/32', '100.100.100.200/32',
].map((cidr) => ipaddr.parseCIDR(cidr))

const alwaysRefused = (address: ipaddr.IPv4 | ipaddr.IPv6): boolean =>
  ALWAYS_REFUSED.some(([range, bits]) => address.kind() === range.kind() && address.match(range, bits))

/** The IPv4 address an IPv4-mapped or NAT64 (64:ff9b::/96, 64:ff9b:1::/48) IPv6 address reaches, if it is one. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address()
  if (address.range() !== 'rfc6052') return null
  const bytes = address.toByteArray().slice(12)
  return new ipaddr.IPv4(bytes)
}

/**
 * Why a webhook may not connect to `address`, or null when it may. Public (ipaddr.js `unicast`) addresses are
 * allowed; every other range is refused unless `allowPrivate`, and even then the unspecified address, link-local
 * addresses and the cloud metadata services (ALWAYS_REFUSED, also inside IPv4-mapped and NAT64 addresses) stay
 * refused.
 *
 * @example
 * addressRefusal('10.0.0.5', false) // "10.0.0.5 is a private (LAN) address; …"
 * addressRefusal('10.0.0.5', true)  // null
 */
export function addressRefusal(address: string, allowPrivate: boolean): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`
  const parsed = ipaddr.parse(address)
  const range = parsed.range()
  const inner = parsed instanceof ipaddr.IPv6 ? embeddedIpv4(parsed) : null
  if (alwaysRefused(inner ?? parsed)) {
    return `${address} is a link-local or cloud metadata address; webhooks never reach these, even with WEBHOOK_ALLOW_PRIVATE=true`
  }
  if (range === 'unicast') return null
  if (range === 'unspecified') return `${address} is ${RANGE_NAMES.unspecified ?? range}`
  if (allowPrivate) return null
  return `${address} is ${RANGE_NAMES[range] ?? `in the ${range} range`}; webhooks reach only public addresses `
    + '(WEBHOOK_ALLOW_PRIVATE=true allows others)'
}

/** The IP address a URL host names literally (`127.0.0.1`, `[::1]`), or null for a host name. */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : null
}
