import type { Generated } from 'kysely'

/** Row shape of `audit_log`, owned by src/audit/store.ts: who did what, when. Times are epoch milliseconds. */
export interface AuditTable {
  /** Generated: the order lines were written in. */
  id: Generated<number>
  at: number
  /** The account that acted; null for the CLI, the service itself, or a failed sign-in of nobody known. */
  user_id: string | null
  /** Who acted, as shown: the account's email at the time, `cli`, or the login a failed sign-in gave. */
  actor: string
  action: string
  project_id: string | null
  /** What it was done to: a visit, issue, person, key… by id, never the data itself. */
  target: string | null
  /** A small JSON object saying more (fields changed, how many visits erased); never erased or secret data. */
  detail: string | null
  ip: string | null
}
