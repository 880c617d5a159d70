import { MAX_MASK_FIELD_LENGTH, MAX_MASK_FIELDS } from '../../common/limits.ts'
import { isSensitiveKey, scrub } from '../../common/scrub.ts'
import type { SdkEvent } from './queue.ts'

/*
 * What of a request and of a form field may leave the page. DOM-free (capture.ts applies it), so it is unit-tested in
 * Node.
 */

/**
 * Which request and response bodies are captured: those of failed requests (the default), none, or those of failed
 * requests whose URL contains one of the strings or matches one of the regular expressions.
 */
export type NetworkBodies = 'failed' | 'none' | readonly (string | RegExp)[]

/**
 * The `networkBodies` option as a test of a request's URL, made absolute against `page()` so that a pattern may name
 * an origin while the page fetches a relative path. Any value it does not know captures no bodies: this option
 * exists to keep data in the page, so a mistyped one errs on that side.
 */
export function bodyFilter(option: unknown, page: () => string): (url: string) => boolean {
  if (option === undefined || option === 'failed') return () => true
  // An empty string is contained in every URL, so it would undo the list; anything else is no pattern at all.
  const patterns = (Array.isArray(option) ? option : []).filter((p: unknown) => (typeof p === 'string' && p !== '') || p instanceof RegExp) as (string | RegExp)[]
  return (url) => {
    let absolute = url
    try { absolute = new URL(url, page()).href } catch { /* not a URL: tested as written */ }
    // search() ignores lastIndex, which test() would carry over between calls for a /g or /y expression.
    return patterns.some((p) => (typeof p === 'string' ? absolute.includes(p) : absolute.search(p) >= 0))
  }
}

/** The `maskFields` option as kept: names of 1 to MAX_MASK_FIELD_LENGTH characters (a cut name would mask another field), the first MAX_MASK_FIELDS of them. */
export const maskFieldsOf = (names: unknown): string[] =>
  (Array.isArray(names) ? names : [])
    .filter((name: unknown): name is string => typeof name === 'string' && name !== '' && name.length <= MAX_MASK_FIELD_LENGTH)
    .slice(0, MAX_MASK_FIELDS)

/**
 * Whether an INPUT event leaves out the field's value: always with `maskInputs`, and for a password field; else when
 * its name or id is one that bodies mask too (the built-in list, and `maskFields`).
 */
export const inputMasked = (field: { type?: string; name?: string; id?: string }, maskInputs: boolean, maskFields: readonly string[]): boolean =>
  maskInputs || field.type === 'password' || [field.name, field.id].some((key) => !!key && isSensitiveKey(key, maskFields))

/** How requests are captured: init's options, with `networkBodies` as a test of a URL (bodyFilter) and `maskFields` as kept. */
export interface RequestOptions {
  slowThresholdMs: number
  maxBodyChars: number
  bodies: (url: string) => boolean
  maskFields: readonly string[]
}

const bodyText = (body: unknown): string | null => (typeof body === 'string' ? body : body instanceof URLSearchParams ? body.toString() : null)

/**
 * The event of a finished request, or null when it neither failed nor was slow. A failed request's bodies are kept
 * when `bodies` takes its URL, scrubbed (with `maskFields`) before they are cut: a cut JSON body no longer parses, and
 * a cut card number no longer passes Luhn.
 */
export function requestEvent(
  opts: RequestOptions, url: string, method: string, status: number | null, durationMs: number, reqBody: unknown, resBody: string | null,
): Omit<SdkEvent, 'id' | 'createdAt'> | null {
  if (status === null || status >= 400) {
    const keep = opts.bodies(url)
    const body = (text: string | null) => (keep && text ? scrub(text, opts.maskFields).slice(0, opts.maxBodyChars) : null)
    return { type: 'HTTP_ERROR', url, method, statusCode: status, durationMs, reqBody: body(bodyText(reqBody)), resBody: body(resBody) }
  }
  return durationMs > opts.slowThresholdMs ? { type: 'SLOW_REQUEST', url, method, statusCode: status, durationMs } : null
}
