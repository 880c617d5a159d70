/*
 * Text rules the service and the browser SDK share: truncation with a visible marker, and masking of passwords and
 * payment card numbers, so the page and the server mask alike. Pure and dependency-free (no Node, no DOM, no
 * imports): the SDK bundles it, and it must never throw.
 */

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

const EXACT_KEYS = new Set(['pass', 'pin', 'otp', 'ssn', 'auth', 'cvv', 'cvc', 'cvv2'])
const KEY_PARTS = [
  'password', 'passwd', 'passphrase', 'pwd', 'secret', 'token', 'apikey', 'api_key', 'api-key',
  'authorization', 'credential', 'cardnumber', 'card_number', 'card-number', 'private_key', 'privatekey',
]

export const MASK = '***'

/**
 * Whether a JSON key or form field name looks like it holds a password or another secret, or is one of
 * `extra` (a project's or a page's own maskFields, compared without regard to case).
 */
export function isSensitiveKey(key: string, extra: readonly string[] = []): boolean {
  const k = key.toLowerCase()
  return EXACT_KEYS.has(k) || KEY_PARTS.some((part) => k.includes(part)) || extra.some((name) => name.toLowerCase() === k)
}

/**
 * Masks password-like values in a request body: JSON (at any depth), URL-encoded forms, and,
 * for text that does not parse (a truncated JSON body, say), `"password": "…"` pairs found by pattern.
 * The client masks too; this is the safety net for clients that did not. Unchanged bodies come back as is.
 */
export function maskSecrets(body: string, extra: readonly string[] = []): string {
  const trimmed = body.trim()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed)
      const masked = maskValue(parsed, extra)
      return masked.changed ? JSON.stringify(masked.value) : body
    } catch {
      return maskByPattern(body, extra)
    }
  }
  if (/^[^\s={}&]+=[^&]*(?:&[^\s={}&]+=[^&]*)*$/.test(trimmed)) return maskForm(body, extra)
  return maskByPattern(body, extra)
}

function maskValue(value: unknown, extra: readonly string[]): { value: unknown; changed: boolean } {
  if (Array.isArray(value)) {
    const items = value.map((item) => maskValue(item, extra))
    return { value: items.map((i) => i.value), changed: items.some((i) => i.changed) }
  }
  if (value !== null && typeof value === 'object') {
    let changed = false
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(value)) {
      if (isSensitiveKey(key, extra)) {
        changed ||= inner !== MASK
        out[key] = MASK
      } else {
        const masked = maskValue(inner, extra)
        changed ||= masked.changed
        out[key] = masked.value
      }
    }
    return { value: out, changed }
  }
  return { value, changed: false }
}

function maskForm(body: string, extra: readonly string[]): string {
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
      return isSensitiveKey(key, extra) ? `${rawKey}=${MASK}` : pair
    })
    .join('&')
}

const JSON_PAIR = /("([^"\\]{1,64})"\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,}\]\s]+)/g

function maskByPattern(body: string, extra: readonly string[]): string {
  return body.replace(JSON_PAIR, (whole: string, head: string, key: string) =>
    isSensitiveKey(key, extra) ? `${head}"${MASK}"` : whole,
  )
}

/*
 * Payment card numbers (PANs), as a visitor types them: 13 or more digits, each pair joined by at most one space or
 * dash, or by the URL-encoded space (`+`, `%20`) a form or query string turns that space into. An optional `%XX`
 * escape just before the digits (`card%3D4921…`) is matched apart so its digits never join the number's.
 */
const CARD_RUN = /(%[0-9A-Fa-f]{2})?(\d(?:(?:[ +-]|%20)?\d){12,})/g

/** Luhn (mod 10) check of a string of ASCII digits, as ISO/IEC 7812 defines for card numbers. */
export function luhnValid(digits: string): boolean {
  let sum = 0
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48
    if (double && (d *= 2) > 9) d -= 9
    sum += d
  }
  return sum % 10 === 0
}

/**
 * Whether a digit string is plausibly a payment card number: 13–19 digits, Luhn-valid, and a first digit of 2–6 (the
 * ISO/IEC 7812 industry digits every card network issues under: Mastercard 2/5, Amex/Diners/JCB 3, Visa 4, Discover/
 * UnionPay/Maestro 6). Only Visa ever issued 13-digit numbers, so 13 digits must start with 4: an epoch-milliseconds
 * timestamp (13 digits, starting with 1 until 2033, 2 or 3 until 2096) is never taken for a card; a 16-digit
 * microseconds timestamp (starting with 1) neither. Luhn then rejects nine in ten other digit runs.
 */
export function isCardNumber(digits: string): boolean {
  const first = digits.charCodeAt(0) - 48
  return digits.length >= 13 && digits.length <= 19 && first >= 2 && first <= 6 && (digits.length > 13 || first === 4)
    && luhnValid(digits)
}

/**
 * Replaces each payment card number in visitor text (a body, a message, a URL, a stack) with `[card …1234]`: its last
 * four digits only, which PCI DSS allows to be shown and which is enough to match a support request. A number counts
 * only as a whole run of digits not touching a letter, digit or underscore, so ids and hashes that merely contain
 * digits are left alone. Unchanged text comes back as is; running it twice changes nothing.
 *
 * @example
 * maskCards('{"card":"4921 7788 0012 3456"}') // '{"card":"[card …3456]"}' when the number is Luhn-valid
 */
export function maskCards(text: string): string {
  return text.replace(CARD_RUN, (whole: string, escape: string | undefined, run: string, at: number) => {
    const before = escape === undefined ? text.charAt(at - 1) : ''
    if (/[\w%]/.test(before) || /\w/.test(text.charAt(at + whole.length))) return whole
    const digits = run.replace(/%20|[ +-]/g, '')
    return isCardNumber(digits) ? `${escape ?? ''}[card …${digits.slice(-4)}]` : whole
  })
}
