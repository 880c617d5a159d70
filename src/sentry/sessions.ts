import { createHash, randomUUID } from 'node:crypto'
import { MAX_ENVIRONMENT_LENGTH, MAX_RELEASE_LENGTH, MAX_USER_ID_LENGTH } from '../../common/limits.ts'
import { cleanText } from '../events/text.ts'
import { aggregateCounts, countsOf, sessionOutcome, type Unit } from '../releases/index.ts'
import { dayOf } from '../util/time.ts'
import { jsonObject, type EnvelopeItem } from './envelope.ts'
import { sentryTime } from './values.ts'

/*
 * How `session` and `sessions` envelope items become release-health units (docs/sentry.md, "Release health"), pure.
 * A session is one unit named by its sid, so its updates and resends replace it; an aggregate's buckets are units
 * named by a hash of the envelope they came in, so the same envelope sent again names the same units and counts once.
 */

const text = (value: unknown, max: number): string | null =>
  (typeof value === 'string' && value.trim() !== '' ? cleanText(value).slice(0, max) : null)
const record = (value: unknown): Record<string, unknown> =>
  (value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {})

/** The release and environment of an item's `attrs`; null without a release, which release health cannot place. */
function placeOf(attrs: unknown): { release: string; environment: string } | null {
  const a = record(attrs)
  const release = text(a.release, MAX_RELEASE_LENGTH)
  return release === null ? null : { release, environment: text(a.environment, MAX_ENVIRONMENT_LENGTH) ?? '' }
}

/**
 * The units of a `session` or `sessions` item; empty when it cannot be counted (no release, no sid, no start). An
 * aggregate is named by its bytes with the envelope header's `event_id` and `sent_at`, so a resent envelope names the
 * same units. Without either (sentry-python and sentry-ruby send a bare `{}`) equal bytes are no resend: two flushes
 * of equal counts in the same minute are, and those SDKs never resend, so each such item gets names of its own.
 */
export function sessionUnits(item: EnvelopeItem, now: number, header: Record<string, unknown> = {}): Unit[] {
  const json = jsonObject(item.payload)
  if (json === null) return []
  const place = placeOf(json.attrs)
  if (place === null) return []
  const user = text(json.did, MAX_USER_ID_LENGTH)
  if (item.type === 'session') {
    const sid = text(json.sid, 100)
    const started = sentryTime(json.started) ?? sentryTime(json.timestamp)
    if (sid === null || started === undefined || started > now + 86_400_000) return []
    const seen = Math.max(started, sentryTime(json.timestamp) ?? started)
    return [{
      unit: `s:${sid}`, source: 'session', ...place, userKey: user, day: dayOf(started), startedAt: started, seenAt: seen,
      ...countsOf(sessionOutcome(json.status, json.errors)),
    }]
  }
  const aggregates = Array.isArray(json.aggregates) ? json.aggregates : []
  const named = header.event_id != null || header.sent_at != null
  const sent = named ? JSON.stringify([header.event_id ?? null, header.sent_at ?? null]) : randomUUID()
  const digest = createHash('sha256').update(sent).update('\n').update(item.payload).digest('base64url').slice(0, 22)
  return aggregates.flatMap((value, i): Unit[] => {
    const bucket = record(value)
    const started = sentryTime(bucket.started)
    const counts = aggregateCounts(bucket)
    if (started === undefined || started > now + 86_400_000 || counts.sessions === 0) return []
    return [{
      unit: `a:${digest}:${i}`, source: 'aggregate', ...place, userKey: text(bucket.did, MAX_USER_ID_LENGTH),
      day: dayOf(started), startedAt: started, seenAt: started, ...counts,
    }]
  })
}
