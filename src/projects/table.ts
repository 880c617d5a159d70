import type { IpStorage } from '../privacy/ip.ts'

/** Row shape of `projects`. Times are epoch milliseconds. */
export interface ProjectTable {
  id: string
  name: string
  domain: string
  retention_days: number
  /** SHA-256 (hex) of the secret, read-only API key; the key itself is never stored. */
  api_key_hash: string
  /** First characters of the API key, so people can tell keys apart. */
  api_key_prefix: string
  /**
   * SHA-256 (hex) of the secret upload key (source maps only); null for a project made before upload keys, until
   * one is created (`project rotate-key --upload`, or the dashboard's API tab).
   */
  upload_key_hash: string | null
  /** First characters of the upload key; null while there is none. */
  upload_key_prefix: string | null
  /** Public, write-only key that ships in every page the SDK runs on. */
  ingest_key: string
  created_at: number
  /** How much of a visitor's IP address is stored (full, truncated, none); null follows the server's IP_STORAGE. */
  ip_storage: IpStorage | null
  /** The project id of its Sentry DSN: the SDK needs a number there (1, 2, … in creation order). */
  number: number
  /** The public key of its Sentry DSN (dsnKeyOf the ingest key): word characters, as the SDK requires. */
  dsn_key: string
  /** JSON array of extra field names masked in request and response bodies, or null for none. */
  mask_fields: string | null
  /** Ingest requests per second per process (src/limits); null follows INGEST_RATE_LIMIT, 0 is no limit. */
  ingest_rate_limit: number | null
  /** Events accepted per UTC day (src/limits/quota.ts); null is no quota. */
  daily_event_quota: number | null
  /** Compressed recording bytes kept at most (src/recording/budget.ts); null is no budget. */
  recording_budget: number | null
  /** 1: members may make public links to one visit's replay (src/replay-links); 0 (the default): every such link stops working. */
  public_replays: number
}
