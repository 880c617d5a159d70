import type { SdkEvent } from './queue.ts'

/** The second argument of `report` and `captureError`. */
export interface GroupOptions {
  /**
   * The issue the event belongs to, chosen by the page: ERROR events with the same fingerprint form one issue
   * whatever their message and stack. An array is joined with spaces (`['checkout', plan]` → `'checkout pro'`).
   */
  fingerprint?: string | readonly string[]
}

/**
 * A thrown or reported value as an event's message: `TypeError: msg` for an Error (its type survives where the
 * browser's stack leaves it out: Firefox and Safari), else the value as text. Never throws: a page can throw
 * anything, even an object without a prototype, or one whose getters throw.
 */
export function messageOf(value: unknown): string {
  try {
    const e = value as { name?: unknown; message?: unknown } | null | undefined
    if (typeof e?.message !== 'string') return String(value)
    const name = typeof e.name === 'string' ? e.name : ''
    return name && e.message ? `${name}: ${e.message}` : e.message || name
  } catch {
    return 'Error (unprintable value)'
  }
}

/** The `fingerprint` option as sent: a string, or an array's items joined with spaces; undefined when absent, empty or unreadable. */
export function fingerprintOf(options: unknown): string | undefined {
  try {
    const value = (options as GroupOptions | null | undefined)?.fingerprint
    const text = Array.isArray(value) ? value.join(' ') : value
    return typeof text === 'string' && text !== '' ? text : undefined
  } catch {
    return undefined
  }
}

/** The ERROR event for `captureError(value, options)` on the page at `url`. */
export function errorEvent(value: unknown, options: unknown, url: string): Omit<SdkEvent, 'id' | 'createdAt'> & { message: string } {
  let stack: string | null = null
  try {
    const s = (value as { stack?: unknown } | null | undefined)?.stack
    if (typeof s === 'string') stack = s
  } catch { /* a throwing getter: no stack */ }
  return { type: 'ERROR', message: messageOf(value), stack, url, fingerprint: fingerprintOf(options) }
}
