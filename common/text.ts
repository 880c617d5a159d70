/*
 * Text rules the service and the browser bundles share: truncation with a visible marker, masking of payment card
 * numbers (scrub.ts masks them with the secrets, in one pass), so the page and the server mask alike, and how a stack
 * heads a cause. Pure and
 * dependency-free (no Node, no DOM, no imports): the SDK bundles it, and it must never throw.
 */

/**
 * The line that opens each cause of a chained error in a stack, Java's way: the service stores a Sentry exception chain
 * as one stack (src/sentry/exception.ts), the error thrown first, then `Caused by: Type: message` and its frames; the
 * dashboard heads each cause with that line.
 */
export const CAUSED_BY = 'Caused by: '

/** Marks where a value was cut; the count says how much is missing. */
export const truncationMarker = (dropped: number): string => `…[truncated ${dropped} chars]`

/**
 * Cuts `value` to at most `max` characters, ending with a visible marker when it had to cut. `alreadyCut` counts
 * characters of the original text a caller dropped from the end before (the marker counts them too).
 */
export function truncate(value: string, max: number, alreadyCut = 0): string {
  const total = value.length + alreadyCut
  if (total <= max) return value
  // The marker's own length depends on the count; two passes settle it.
  let keep = max - truncationMarker(total - max).length
  keep = Math.min(value.length, Math.max(0, max - truncationMarker(total - keep).length))
  return value.slice(0, keep) + truncationMarker(total - keep)
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
