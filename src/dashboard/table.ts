/** Row shape of `admin_sessions`, owned by src/dashboard/store.ts: one signed-in dashboard browser. Times are epoch milliseconds. */
export interface AdminSessionTable {
  /** SHA-256 (hex) of the cookie's random token; the token itself is never stored. */
  token_hash: string
  /** Which admin password the sign-in was made with (a digest of it): another password signs the browser out. */
  password_tag: string
  created_at: number
  expires_at: number
}
