import { scrub } from '../../common/scrub.ts'
import type { SdkEvent } from './queue.ts'

/**
 * Every field of an event that can carry what a visitor typed or the page shows of it: a URL's query, a message, a
 * stack's first line, bodies, a fingerprint built from data, a clicked element's text (a card number on a button).
 */
const TEXT_FIELDS = ['url', 'message', 'stack', 'reqBody', 'resBody', 'fingerprint', 'text'] as const

/**
 * Secrets and card numbers never leave the page: each text field goes through common/scrub.ts's pass before the
 * event is queued, whatever captured it (the server scrubs again, for clients that did not). Pure and DOM-free, so
 * it is unit-tested in Node.
 *
 * @example
 * scrubEvent({ type: 'NAVIGATION', url: '/cb#access_token=abc' }) // url: '/cb#access_token=***'
 */
export function scrubEvent(event: Omit<SdkEvent, 'id' | 'createdAt'>): Omit<SdkEvent, 'id' | 'createdAt'> {
  const out = { ...event }
  for (const key of TEXT_FIELDS) {
    const value = out[key]
    if (typeof value === 'string') out[key] = scrub(value)
  }
  return out
}
