import { bad, ok, parseBoolean, parseUrlSetting, type Parsed, type ReadSetting } from '../util/setting.ts'
import { isRole, ROLES, type Role } from '../accounts/roles.ts'

/** OIDC_*: the identity provider people sign in with (see OidcClient). */
export interface OidcSettings {
  /** The provider's issuer URL, as its discovery document states it. */
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  /** Lower-case email domains whose addresses may sign in; never empty. */
  readonly allowedDomains: readonly string[]
  /** The role of an account whose role claim names none. */
  readonly defaultRole: Role
  /** The ID token or userinfo claim that lists roles (`groups`, say); null: every account gets `defaultRole`. */
  readonly roleClaim: string | null
}

export interface SignInSettings {
  /** null: single sign-on is off (OIDC_ISSUER unset). */
  readonly oidc: OidcSettings | null
  /** PASSWORD_LOGIN: whether the password sign-in is offered; false only beside single sign-on. */
  readonly passwordLogin: boolean
}

const DEFAULT_ROLE: Role = 'viewer'
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * Reads OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_ALLOWED_DOMAINS, OIDC_DEFAULT_ROLE, OIDC_ROLE_CLAIM and
 * PASSWORD_LOGIN through src/config.ts's reader; what is wrong between them (an issuer without a client, a client
 * without an issuer) goes to `problems` beside the reader's own.
 */
export function readSignInSettings(read: ReadSetting, problems: string[]): SignInSettings {
  // A bad value is reported already: it is not reported a second time as missing, nor are others blamed for it.
  const reported = new Set<string>()
  const readOptional = <T>(name: string, parse: (raw: string) => Parsed<T>): T | null => {
    const before = problems.length
    const value = read<T | null>(name, null, parse)
    if (problems.length > before) reported.add(name)
    return value
  }
  const issuer = readOptional('OIDC_ISSUER', parseIssuer)
  const clientId = readOptional('OIDC_CLIENT_ID', ok)
  const clientSecret = readOptional('OIDC_CLIENT_SECRET', ok)
  const allowedDomains = readOptional('OIDC_ALLOWED_DOMAINS', parseDomains)
  const defaultRole = read<Role>('OIDC_DEFAULT_ROLE', DEFAULT_ROLE, (raw) =>
    isRole(raw) ? ok(raw) : bad(`must be one of ${ROLES.join(', ')}`))
  const roleClaim = readOptional('OIDC_ROLE_CLAIM', (raw) =>
    /^\S+$/.test(raw) ? ok(raw) : bad('must be a claim name without spaces, such as groups or roles'))
  const passwordLogin = read('PASSWORD_LOGIN', true, parseBoolean)

  if (issuer === null) {
    if (reported.has('OIDC_ISSUER')) return { oidc: null, passwordLogin }
    const dependents = Object.entries({ OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret, OIDC_ALLOWED_DOMAINS: allowedDomains, OIDC_ROLE_CLAIM: roleClaim })
      .filter(([name, value]) => value !== null || reported.has(name)).map(([name]) => name)
    if (dependents.length > 0) {
      problems.push(`${dependents.join(', ')} ${dependents.length === 1 ? 'is' : 'are'} set but OIDC_ISSUER is not: set it to the identity provider's issuer URL, or unset them`)
    }
    if (!passwordLogin) problems.push('PASSWORD_LOGIN=false needs OIDC_ISSUER: without single sign-on nobody could sign in')
    return { oidc: null, passwordLogin }
  }
  const missing = Object.entries({ OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret, OIDC_ALLOWED_DOMAINS: allowedDomains })
    .filter(([name, value]) => value === null && !reported.has(name)).map(([name]) => name)
  if (missing.length > 0) {
    problems.push(`OIDC_ISSUER is set, so ${missing.join(', ')} must be too (the client registered at the provider, and the email domains that may sign in)`)
  }
  if (clientId === null || clientSecret === null || allowedDomains === null) return { oidc: null, passwordLogin }
  return { oidc: Object.freeze({ issuer, clientId, clientSecret, allowedDomains, defaultRole, roleClaim }), passwordLogin }
}

/** The issuer as a URL's href, which is how openid-client compares it with the discovery document's. */
function parseIssuer(raw: string): Parsed<string> {
  const url = parseUrlSetting(raw, ['https:', 'http:'], 'must be the identity provider\'s issuer URL, such as https://accounts.example.com/realms/staff',
    'must start with https:// (or http:// for a provider on a trusted network)', 'must be the issuer URL alone, without credentials, query or fragment')
  return 'problem' in url ? url : ok(url.value.href)
}

function parseDomains(raw: string): Parsed<readonly string[]> {
  const domains = raw.split(',').map((d) => d.trim().toLowerCase().replace(/^@/, '')).filter(Boolean)
  if (domains.length === 0) return bad('must list the email domains that may sign in, such as example.com,example.org (an empty list would allow nobody)')
  const invalid = domains.filter((d) => !DOMAIN.test(d))
  if (invalid.length > 0) return bad(`must be a comma-separated list of email domains such as example.com; not a domain: ${invalid.join(', ')}`)
  return ok(Object.freeze([...new Set(domains)]))
}
