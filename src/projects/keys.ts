import { timingSafeEqual } from 'node:crypto'
import { newId, sha256Hex } from '../shared/ids.ts'

/*
 * API keys carry 256 bits of entropy, so one SHA-256 is enough to store them safely: a slow
 * password hash protects low-entropy secrets, which these are not. The prefixes tell a leaked
 * key's kind at a glance (and let secret scanners find them).
 */
export const API_KEY_PREFIX = 'sw_api_'
export const INGEST_KEY_PREFIX = 'sw_ing_'

export const newApiKey = (): string => newId(API_KEY_PREFIX, 32)
export const newIngestKey = (): string => newId(INGEST_KEY_PREFIX, 16)
export const hashApiKey = (key: string): string => sha256Hex(key)
/** What is shown in listings: enough to tell keys apart, too little to use. */
export const displayPrefix = (key: string): string => key.slice(0, API_KEY_PREFIX.length + 6)

/** Constant-time comparison of two hex digests of equal length. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}
