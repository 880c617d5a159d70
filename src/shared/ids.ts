import { createHash, randomBytes } from 'node:crypto'

/** A random, URL-safe identifier: `prefix` followed by `bytes` of entropy in base64url. */
export function newId(prefix: string, bytes: number): string {
  return prefix + randomBytes(bytes).toString('base64url')
}

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex')
