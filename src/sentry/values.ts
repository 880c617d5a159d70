import { hash } from 'node:crypto'
import { TEXT_LIMITS } from '../contract/limits.ts'

/*
 * Readers of a Sentry payload's values, shared by the item mappers (event.ts, exception.ts, breadcrumbs.ts). A payload
 * is visitor input: each reader checks the value's type and answers undefined for anything else.
 */

export type Json = Record<string, unknown>

export const obj = (value: unknown): Json | undefined =>
  (value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Json : undefined)
export const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)
export const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)
export const cut = (value: string | undefined, max: number): string | undefined => (value === undefined ? undefined : value.slice(0, max))
/** A list as Sentry sends one: an array, or an object whose `values` is one (`exception`, `breadcrumbs`). */
export const list = (value: unknown): unknown[] => {
  if (Array.isArray(value)) return value
  const values = obj(value)?.values
  return Array.isArray(values) ? values : []
}
/** The objects of a list, anything else left out. */
export const objects = (value: unknown): Json[] => list(value).map(obj).filter((o): o is Json => o !== undefined)

/** Text the ingest schema would take for `field`: cut here so a huge value costs nothing downstream. */
export const text = (value: unknown, field: keyof typeof TEXT_LIMITS): string | undefined => cut(str(value), TEXT_LIMITS[field] * 2)

/** A Sentry time (seconds since the epoch, or an RFC 3339 string) in epoch milliseconds, or undefined. */
export function sentryTime(value: unknown): number | undefined {
  const seconds = num(value)
  if (seconds !== undefined) return seconds >= 0 && seconds < 253_402_300_800 ? Math.round(seconds * 1000) : undefined
  const written = str(value)
  if (written === undefined) return undefined
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(written) ? written : `${written}Z`)
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined
}

/**
 * A short, stable id from content: the same breadcrumb sent again with a later event gets the same id. 96 bits of
 * SHA-1 (one-shot, the cheapest digest Node has): distinct breadcrumbs of one visit never collide in practice.
 */
export const contentId = (prefix: string, content: string): string => `${prefix}${hash('sha1', content, 'base64url').slice(0, 16)}`

/** Sentry levels that make a message event an error. */
export const ERROR_LEVELS: ReadonlySet<string> = new Set(['error', 'fatal'])
