/**
 * Who may sign in through the identity provider, and with what role: pure rules, so each one is tested alone and the
 * sign-in route applies them to what `OidcClient.finish` returns.
 */

import { ROLES, type Role } from '../accounts/roles.ts'

/**
 * Whether an address's domain is exactly one of `allowedDomains` (any case): `evil-example.com` and
 * `example.com.evil.net` are not `example.com`, nor is a subdomain. An address with no local part, no domain or more
 * than one `@` is refused rather than guessed at; an empty list allows nobody.
 *
 * @example
 * emailAllowed('Ana@Example.COM', ['example.com']) // true
 * emailAllowed('ana@evil-example.com', ['example.com']) // false
 */
export function emailAllowed(email: string, allowedDomains: readonly string[]): boolean {
  const parts = email.trim().split('@')
  if (parts.length !== 2 || !parts[0] || !parts[1] || /\s/.test(email.trim())) return false
  const domain = parts[1].toLowerCase()
  return allowedDomains.some((allowed) => allowed.trim().toLowerCase() === domain)
}

/**
 * The highest known role named by a role claim (a string, or an array whose strings count and whose other items are
 * ignored), any case; `fallback` when it names none.
 *
 * @example
 * roleFromClaim(['member', 'admin', 'billing'], 'viewer') // 'admin'
 * roleFromClaim(undefined, 'viewer') // 'viewer'
 */
export function roleFromClaim(claimValue: unknown, fallback: Role): Role {
  const values: unknown[] = Array.isArray(claimValue) ? claimValue : [claimValue]
  let best = -1
  for (const value of values) {
    if (typeof value !== 'string') continue
    best = Math.max(best, ROLES.indexOf(value.trim().toLowerCase() as Role))
  }
  return ROLES[best] ?? fallback
}
