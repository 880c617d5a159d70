import { TEXT_LIMITS } from '../contract/limits.ts'

/** This module's limits; README and docs state them (test/unit/limits.test.ts). */

/**
 * TEXT_LIMITS as the docs write them, fields of equal limit joined.
 *
 * @example
 * textLimitsProse() // "url 4096, method 16, message 8192, stack 32768, reqBody and resBody 65536"
 */
export function textLimitsProse(): string {
  const byLimit = new Map<number, string[]>()
  for (const [field, limit] of Object.entries(TEXT_LIMITS)) byLimit.set(limit, [...(byLimit.get(limit) ?? []), field])
  return [...byLimit].map(([limit, fields]) => `${fields.join(' and ')} ${limit}`).join(', ')
}
