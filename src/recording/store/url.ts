import type { S3Settings } from './s3.ts'

/** RECORDINGS_URL parsed: where new chunks go. `database:` keeps them in the chunk rows, as before stores existed. */
export type StoreUrl = { kind: 'database'; url: 'database:' } | { kind: 'file'; url: string; root: string } | { kind: 's3'; url: string; bucket: string; prefix: string }

/** Recording settings of the config (RECORDINGS_URL, S3_*, RECORDINGS_MIN_FREE). */
export interface RecordingsConfig {
  readonly store: StoreUrl
  readonly s3: S3Settings
  /** RECORDINGS_MIN_FREE as a share (0–1) of the `file:` store's filesystem. */
  readonly minFreeShare: number
}

/**
 * Parses a RECORDINGS_URL (already resolved against the working directory for `file:`); a problem as text.
 * S3 bucket names follow S3's rules (3–63 of a-z, 0-9, `.` and `-`); the prefix loses its outer slashes.
 */
export function parseStoreUrl(raw: string, resolve: (p: string) => string): StoreUrl | string {
  if (raw === 'database:' || raw === 'database') return { kind: 'database', url: 'database:' }
  const file = /^file:(?:\/\/(?=\/))?(.+)$/.exec(raw)
  if (file?.[1]) {
    const root = resolve(file[1])
    return { kind: 'file', url: `file:${root}`, root }
  }
  const s3 = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(raw)
  if (s3?.[1]) {
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(s3[1])) return `the bucket "${s3[1]}" is not an S3 bucket name (3–63 of a-z, 0-9, . and -)`
    const prefix = (s3[2] ?? '').replace(/^\/+|\/+$/g, '')
    return { kind: 's3', url: `s3://${s3[1]}${prefix === '' ? '' : `/${prefix}`}`, bucket: s3[1], prefix }
  }
  return 'must be database:, file:PATH or s3://BUCKET/PREFIX'
}

