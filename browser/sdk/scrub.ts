import { maskCards } from '../../common/text.ts'
import type { SdkEvent } from './queue.ts'

/** Every field of an event that can carry what a visitor typed: a URL's query, a message, a stack's first line, bodies, a fingerprint built from data. */
const TEXT_FIELDS = ['url', 'message', 'stack', 'reqBody', 'resBody', 'fingerprint'] as const

/**
 * Card numbers never leave the page: each text field is masked before the event is queued, whatever captured it
 * (the server masks again, for clients that did not). Pure and DOM-free, so it is unit-tested in Node.
 *
 * @example
 * maskEventCards({ type: 'ERROR', message: 'declined 4921 7788 0012 3456' }) // message: 'declined [card …3456]'
 */
export function maskEventCards(event: Omit<SdkEvent, 'id' | 'createdAt'>): Omit<SdkEvent, 'id' | 'createdAt'> {
  const out = { ...event }
  for (const key of TEXT_FIELDS) {
    const value = out[key]
    if (typeof value === 'string') out[key] = maskCards(value)
  }
  return out
}
