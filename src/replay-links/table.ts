/** Row shape of `replay_links`, owned by src/replay-links/store.ts: a public, read-only link to one visit's replay. Times are epoch milliseconds. */
export interface ReplayLinkTable {
  /** SHA-256 (hex) of the link's random token; the token itself is never stored. */
  token_hash: string
  /** Public id (`rl_…`) by which the link is listed and revoked; never the token. */
  id: string
  project_id: string
  session_id: string
  /** Who made it (users.id); null once they were removed. */
  created_by: string | null
  created_at: number
  expires_at: number
  /** When it was revoked; null while it works. */
  revoked_at: number | null
}
