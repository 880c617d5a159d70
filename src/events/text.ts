import { TEXT_LIMITS, type TextField } from './types.ts'

/** Marks where a value was cut; the count says how much is missing. */
export const truncationMarker = (dropped: number): string => `…[truncated ${dropped} chars]`

/** Cuts `value` to at most `max` characters, ending with a visible marker when it had to cut. */
export function truncate(value: string, max: number): string {
  if (value.length <= max) return value
  // The marker's own length depends on the count; two passes settle it.
  let keep = max - truncationMarker(value.length - max).length
  keep = max - truncationMarker(value.length - keep).length
  return value.slice(0, Math.max(0, keep)) + truncationMarker(value.length - Math.max(0, keep))
}

/*
 * PostgreSQL text cannot hold U+0000, and SQLite can; replacing it everywhere keeps the engines'
 * answers identical and keeps a stray NUL in a visitor's data from failing the whole batch.
 */
export const cleanText = (value: string): string => (value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value)

export const limitText = (field: TextField, value: string | null | undefined): string | null =>
  value == null ? null : truncate(cleanText(value), TEXT_LIMITS[field])

const EXACT_KEYS = new Set(['pass', 'pin', 'otp', 'ssn', 'auth', 'cvv', 'cvc', 'cvv2'])
const KEY_PARTS = [
  'password', 'passwd', 'passphrase', 'pwd', 'secret', 'token', 'apikey', 'api_key', 'api-key',
  'authorization', 'credential', 'cardnumber', 'card_number', 'card-number', 'private_key', 'privatekey',
]

export const MASK = '***'

/** Whether a JSON key or form field name looks like it holds a password or another secret. */
export function isSensitiveKey(key: string): boolean {
  const k = key.toLowerCase()
  return EXACT_KEYS.has(k) || KEY_PARTS.some((part) => k.includes(part))
}

/**
 * Masks password-like values in a request body: JSON (at any depth), URL-encoded forms, and,
 * for text that does not parse (a truncated JSON body, say), `"password": "…"` pairs found by pattern.
 * The client masks too; this is the safety net for clients that did not. Unchanged bodies come back as is.
 */
export function maskSecrets(body: string): string {
  const trimmed = body.trim()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed)
      const masked = maskValue(parsed)
      return masked.changed ? JSON.stringify(masked.value) : body
    } catch {
      return maskByPattern(body)
    }
  }
  if (/^[^\s={}&]+=[^&]*(?:&[^\s={}&]+=[^&]*)*$/.test(trimmed)) return maskForm(body)
  return maskByPattern(body)
}

function maskValue(value: unknown): { value: unknown; changed: boolean } {
  if (Array.isArray(value)) {
    const items = value.map(maskValue)
    return { value: items.map((i) => i.value), changed: items.some((i) => i.changed) }
  }
  if (value !== null && typeof value === 'object') {
    let changed = false
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(value)) {
      if (isSensitiveKey(key)) {
        changed ||= inner !== MASK
        out[key] = MASK
      } else {
        const masked = maskValue(inner)
        changed ||= masked.changed
        out[key] = masked.value
      }
    }
    return { value: out, changed }
  }
  return { value, changed: false }
}

function maskForm(body: string): string {
  return body
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=')
      const rawKey = pair.slice(0, eq)
      let key = rawKey
      try {
        key = decodeURIComponent(rawKey.replace(/\+/g, ' '))
      } catch {
        // A malformed escape still names the field well enough to test.
      }
      return isSensitiveKey(key) ? `${rawKey}=${MASK}` : pair
    })
    .join('&')
}

const JSON_PAIR = /("([^"\\]{1,64})"\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,}\]\s]+)/g

function maskByPattern(body: string): string {
  return body.replace(JSON_PAIR, (whole: string, head: string, key: string) =>
    isSensitiveKey(key) ? `${head}"${MASK}"` : whole,
  )
}
