export const DAY_MS = 86_400_000

/** UTC day number (days since 1970-01-01) of an epoch-millisecond instant. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS)

/** ISO 8601 UTC with milliseconds, the only timestamp form the API emits. */
export const toIso = (ms: number): string => new Date(ms).toISOString()

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME_RE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/

/** Epoch ms of a calendar date's UTC midnight, or null for malformed or impossible dates (2026-02-30). */
export function parseDate(value: string): number | null {
  const m = DATE_RE.exec(value)
  if (!m) return null
  return utc(Number(m[1]), Number(m[2]), Number(m[3]), 0, 0, 0, 0)
}

/**
 * Parses an ISO 8601 instant: a date-time with `Z` or an offset, or a bare date meaning that
 * day's UTC midnight. A date-time without a zone is refused: it names no single instant.
 */
export function parseInstant(value: string): number | null {
  const date = parseDate(value)
  if (date !== null) return date
  const m = DATE_TIME_RE.exec(value)
  if (!m) return null
  const ms = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3))
  const local = utc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0), ms)
  if (local === null) return null
  if (m[8] !== undefined) return local
  const offsetH = Number(m[10])
  const offsetM = Number(m[11])
  if (offsetH > 23 || offsetM > 59) return null
  const sign = m[9] === '-' ? -1 : 1
  return local - sign * (offsetH * 60 + offsetM) * 60_000
}

function utc(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number | null {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms)
  // Date.UTC rolls 2026-02-30 over to March; a changed day means the date does not exist.
  return new Date(t).getUTCDate() === d && y >= 1970 && y <= 9999 ? t : null
}
