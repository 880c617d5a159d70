import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { parseEnvelope } from '../../src/sentry/envelope.ts'
import { ROOT } from './service.ts'

/** Events each benchmark envelope stores: its error and 19 breadcrumbs, as many as a benchmark batch holds. */
export const EVENTS_PER_ENVELOPE = 20
const ENVELOPES_PER_USER = 5

/**
 * Envelopes as @sentry/browser 11 sends an error: the event recorded from the real SDK
 * (test/fixtures/sentry/error.envelope), each with its own event id, time and breadcrumbs — the composition of
 * a benchmark batch (a navigation, 12 clicks, 3 inputs, 2 failed requests and a console error, besides the
 * error), so envelope and batch ingest store the same events. Five envelopes per user: the visit rule finds the
 * user's visit, as it would on a real site.
 */
export function envelopeFactory(prefix: string): () => string {
  const recorded = parseEnvelope(fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'sentry', 'error.envelope')))
  const item = recorded.items.find((i) => i.type === 'event')
  if (!item) throw new Error('test/fixtures/sentry/error.envelope holds no event item')
  const event = JSON.parse(item.payload.toString('utf8')) as Record<string, unknown>
  // The recorded error named its replay: here each user's errors make their visit, as without a replay.
  delete event.contexts
  delete (event.tags as Record<string, unknown> | undefined)?.replayId
  let n = 0
  return () => {
    const i = n++
    const now = Date.now() / 1000
    const eventId = createHash('md5').update(`${prefix}-${i}`).digest('hex')
    const crumbs = [
      { category: 'navigation', data: { from: '/', to: `/p/${i % 97}?utm_source=bench` } },
      ...Array.from({ length: 12 }, (_, k) => ({ category: 'ui.click', message: `body > button.buy-${k}` })),
      ...Array.from({ length: 3 }, (_, k) => ({ category: 'ui.input', message: `input[name=field${k}]` })),
      { type: 'http', category: 'fetch', data: { method: 'POST', url: '/api/cart', status_code: 500 } },
      { type: 'http', category: 'xhr', data: { method: 'GET', url: '/api/user', status_code: 404 } },
      { category: 'console', level: 'error', message: 'Cart failed to render' },
      // A user's envelopes 20 ms apart, so two made in the same millisecond hold distinct breadcrumbs (the same
      // breadcrumb at the same time is one the SDK sent again, and is stored once).
    ].map((c, k) => ({ ...c, timestamp: now - 1 + ((i % ENVELOPES_PER_USER) * 20 + k) / 1000 }))
    const body = { ...event, event_id: eventId, timestamp: now, breadcrumbs: { values: crumbs }, user: { id: `${prefix}-user-${Math.floor(i / ENVELOPES_PER_USER)}` } }
    return `${JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() })}\n{"type":"event"}\n${JSON.stringify(body)}`
  }
}
