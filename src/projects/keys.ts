import { timingSafeEqual } from 'node:crypto'
import { newId, sha256Hex } from '../util/ids.ts'

/*
 * API keys carry 256 bits of entropy, so one SHA-256 is enough to store them safely: a slow
 * password hash protects low-entropy secrets, which these are not. The prefixes tell a leaked
 * key's kind at a glance (and let secret scanners find them).
 */
export const API_KEY_PREFIX = 'sw_api_'
export const INGEST_KEY_PREFIX = 'sw_ing_'
/** The secret key of source map uploads from CI: it writes maps and reads nothing. */
export const UPLOAD_KEY_PREFIX = 'sw_upl_'

export const newApiKey = (): string => newId(API_KEY_PREFIX, 32)
export const newIngestKey = (): string => newId(INGEST_KEY_PREFIX, 16)
export const newUploadKey = (): string => newId(UPLOAD_KEY_PREFIX, 32)
export const hashApiKey = (key: string): string => sha256Hex(key)
/**
 * The public key of a project's Sentry DSN. The Sentry SDK's DSN parser takes only word characters
 * (`\w+`) there, which an ingest key's base64url often is not, so it is 32 hex digits derived from the
 * ingest key: as public and write-only as that key, and replaced whenever it is rotated.
 */
export const dsnKeyOf = (ingestKey: string): string => sha256Hex(`sentry-dsn:${ingestKey}`).slice(0, 32)
/** What is shown in listings: enough to tell keys apart, too little to use. */
export const displayPrefix = (key: string): string => key.slice(0, API_KEY_PREFIX.length + 6)

/** Constant-time comparison of two hex digests of equal length. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}
