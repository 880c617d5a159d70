import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Provider } from 'oidc-provider'

/** A person at the test identity provider: their claims, released to the client by the matching scopes. */
export interface TestAccount {
  email: string
  emailVerified?: boolean
  name?: string
  /** The `groups` claim (scope `groups`), such as ['admin']. */
  groups?: unknown
}

export interface TestOidc {
  issuer: string
  clientId: string
  clientSecret: string
  /** Stops the provider, dropping open connections: an outage. */
  stop(): Promise<void>
  /** Starts it again on the same port, with the clients, keys and grants it had. */
  start(): Promise<void>
}

/**
 * A real OpenID Connect provider (oidc-provider) on a free loopback port, with one confidential client allowed to
 * redirect to `redirectUri`, PKCE required, and its development login form, which signs in any login name that is a
 * key of `accounts` (whatever the password).
 */
export async function startTestOidc(options: { accounts: Record<string, TestAccount>; redirectUri: string }): Promise<TestOidc> {
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | null = null
  const server = createServer((req, res) => handle?.(req, res))
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  await listen(0)
  const port = (server.address() as AddressInfo).port
  const issuer = `http://127.0.0.1:${port}`
  const clientId = 'sessionwatch-test'
  const clientSecret = randomBytes(24).toString('base64url')
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' })
  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [options.redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    }],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    // Lifetimes of its own, so the provider does not print a notice for each default it falls back on.
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    jwks: { keys: [{ ...signingKey, alg: 'RS256', use: 'sig' }] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    findAccount: (_ctx, id) => {
      const account = options.accounts[id]
      if (!account) return undefined
      return {
        accountId: id,
        claims: () => ({ sub: id, email: account.email, email_verified: account.emailVerified ?? true, name: account.name, groups: account.groups }),
      }
    },
  })
  handle = provider.callback()
  return {
    issuer,
    clientId,
    clientSecret,
    async stop() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve()
        })
      })
    },
    start: () => listen(port),
  }
}

/** The cookies a browser would keep, by name; every cookie goes with every request to the one test provider. */
class CookieJar {
  readonly #cookies = new Map<string, string>()
  keep(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()]
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(name)
      else this.#cookies.set(name, value)
    }
  }
  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }
}

/**
 * Plays the browser through a sign-in: opens `authorizationUrl`, follows the provider's redirects, fills its login form
 * with `login` and submits its consent form, until the provider redirects to `redirectUri`; returns that callback URL.
 */
export async function signInAtProvider(authorizationUrl: string, login: string, redirectUri: string): Promise<URL> {
  const jar = new CookieJar()
  let request: { url: string; form?: URLSearchParams } = { url: authorizationUrl }
  for (let step = 0; step < 12; step++) {
    const response = await fetch(request.url, {
      method: request.form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(request.form && { 'content-type': 'application/x-www-form-urlencoded' }) },
      body: request.form?.toString() ?? null,
    })
    jar.keep(response)
    const location = response.headers.get('location')
    if (location !== null) {
      const next = new URL(location, request.url)
      if (next.href.startsWith(redirectUri)) return next
      request = { url: next.href }
      continue
    }
    const page = await response.text()
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1]
    const prompt = /name="prompt" value="([^"]+)"/.exec(page)?.[1]
    if (response.status !== 200 || action === undefined || prompt === undefined) {
      throw new Error(`the provider answered ${response.status} without a form at ${request.url}: ${page.slice(0, 500)}`)
    }
    const form = new URLSearchParams({ prompt })
    if (prompt === 'login') {
      form.set('login', login)
      form.set('password', 'any')
    }
    request = { url: new URL(action.replace(/&amp;/g, '&'), request.url).href, form }
  }
  throw new Error('the sign-in did not come back to the redirect URI in 12 steps')
}
