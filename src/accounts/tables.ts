import type { Role } from './roles.ts'

/*
 * Row shapes of the accounts tables, owned by src/accounts/store.ts. Times are epoch milliseconds.
 */

/** A person who signs in to the dashboard. */
export interface UserTable {
  /** `u_` and 16 random characters. */
  id: string
  /** Lower-cased; the first owner's is the name `admin` until someone renames it. */
  email: string
  name: string | null
  /** Argon2id (`$argon2id$…`), or the scrypt hash of the shared password it replaced (`scrypt$…`); null: no password (invited, or single sign-on only). */
  password_hash: string | null
  /** The role on every project, or null for roles per project only. */
  role: Role | null
  created_at: number
  last_sign_in_at: number | null
  /** The identity provider's `sub` for this person, once they signed in with single sign-on. */
  oidc_subject: string | null
}

/** A single sign-on under way: what its callback is checked against, for ten minutes. */
export interface SsoStateTable {
  /** SHA-256 (hex) of the `state` sent to the provider. */
  state_hash: string
  /** The PendingSignIn (src/sso/oidc.ts) as JSON: it holds the PKCE verifier, so it stays on the server. */
  pending: string
  expires_at: number
}

/** A role on one project, beside (and never below) the person's role on every project. */
export interface UserProjectTable {
  user_id: string
  project_id: string
  role: Role
}

/** A one-time link that sets a password: an invitation or a reset. */
export interface InvitationTable {
  /** SHA-256 (hex) of the link's random token; the token itself is never stored. */
  token_hash: string
  user_id: string
  created_at: number
  expires_at: number
}

/** One signed-in browser. */
export interface SignInTable {
  /** Public id (`si_…`) by which a person lists and ends their sign-ins; never the cookie's token. */
  id: string
  /** SHA-256 (hex) of the cookie's random token. */
  token_hash: string
  user_id: string
  /** Which password the sign-in was made with (a digest of it): another password ends it. */
  password_tag: string
  created_at: number
  expires_at: number
  user_agent: string | null
  ip: string | null
}

