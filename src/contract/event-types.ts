import type { EventField } from './event.ts'

export type { EventField, EventRecord, TextField } from './event.ts'

/** The event types the spec names; their fields are validated. Other types matching TYPE_PATTERN are stored as sent. */
export const KNOWN_TYPES = [
  'ERROR', 'HTTP_ERROR', 'SLOW_REQUEST', 'NAVIGATION', 'CLICK', 'INPUT', 'USER_REPORT', 'RAGE_CLICK', 'DEAD_CLICK', 'WEB_VITAL',
] as const
export type KnownType = (typeof KNOWN_TYPES)[number]

/** Upper-case words joined by underscores, e.g. CONSOLE_ERROR. */
export const TYPE_PATTERN = '^[A-Z][A-Z0-9_]{0,39}$'

/** Types counted in `events.errors` — what makes a visit "broken". */
export const ERROR_TYPES: readonly string[] = ['ERROR', 'HTTP_ERROR']
/** Types counted in `events.slow`: slow requests and slow resources both arrive as SLOW_REQUEST. */
export const SLOW_TYPES: readonly string[] = ['SLOW_REQUEST']

/** Fields a known type cannot do without. */
export const REQUIRED_FIELDS: Readonly<Record<KnownType, readonly EventField[]>> = {
  ERROR: ['message'],
  HTTP_ERROR: ['url', 'method'],
  SLOW_REQUEST: ['url', 'durationMs'],
  NAVIGATION: ['url'],
  CLICK: ['message'],
  INPUT: ['message'],
  USER_REPORT: ['message'],
  RAGE_CLICK: ['selector', 'count'],
  DEAD_CLICK: ['selector'],
  WEB_VITAL: ['name', 'value'],
}

export const isKnownType = (type: string): type is KnownType => (KNOWN_TYPES as readonly string[]).includes(type)

export interface Counters {
  total: number
  errors: number
  slow: number
}

/** Counter increments for a list of event types. */
export function countTypes(types: Iterable<string>): Counters {
  const counters = { total: 0, errors: 0, slow: 0 }
  for (const type of types) {
    counters.total++
    if (ERROR_TYPES.includes(type)) counters.errors++
    if (SLOW_TYPES.includes(type)) counters.slow++
  }
  return counters
}

/** Names the required fields a known-type event lacks; empty when it is complete or its type is not known. */
export function missingFields(type: string, event: Partial<Record<EventField, unknown>>): EventField[] {
  if (!isKnownType(type)) return []
  return REQUIRED_FIELDS[type].filter((field) => event[field] === undefined || event[field] === null)
}
