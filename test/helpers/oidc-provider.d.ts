/** The part of oidc-provider (untyped) the test identity provider uses. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export interface AccountClaims {
    sub: string
    [claim: string]: unknown
  }
  export interface Account {
    accountId: string
    claims(use: string, scope: string): AccountClaims | Promise<AccountClaims>
  }
  export interface Configuration {
    clients?: Record<string, unknown>[]
    findAccount?: (ctx: unknown, id: string) => Account | undefined | Promise<Account | undefined>
    claims?: Record<string, string[]>
    cookies?: { keys?: string[] }
    jwks?: { keys: Record<string, unknown>[] }
    pkce?: { required?: () => boolean }
    features?: Record<string, { enabled: boolean }>
    ttl?: Record<string, number>
  }
  export class Provider {
    constructor(issuer: string, configuration?: Configuration)
    callback(): (req: IncomingMessage, res: ServerResponse) => void
  }
}
