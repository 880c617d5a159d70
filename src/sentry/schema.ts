import Type from 'typebox'
import { SENTRY_RETRY_SECONDS } from '../errors.ts'
import { ErrorBody, ref } from '../util/schema.ts'

const Counts = (description: string) => Type.Record(Type.String(), Type.Integer({ minimum: 1 }), { description })

/** The answer to an envelope: what Sentry's SDKs read (`id`), and what Sessionwatch made of each item. */
export const SentryAnswer = Type.Object({
  id: Type.Optional(Type.String({
    pattern: '^[0-9a-f]{32}$',
    description: 'The id of the first event stored (Sentry\'s `event_id`), else the envelope\'s; absent when the envelope names none.',
  })),
  stored: Counts('Items kept, by item type: event, feedback, user_report, replay_recording, session, and transaction and span when they carry web vitals.'),
  dropped: Counts('Items accepted and left out, by item type: client_report, transactions and spans without web vitals, log, profile, '
    + 'attachment, unknown types, sessions without a release, and replay segments that could not be read (docs/sentry.md).'),
  stopped: Type.Optional(Type.String({
    description: 'Why reading stopped before the end of the envelope (a truncated item, or an item header that is not JSON): '
      + 'the items before it are stored, as Sentry does. Also sent as the `X-Sentry-Error` header.',
  })),
}, { $id: 'SentryAnswer', title: 'SentryAnswer', additionalProperties: false })

export const SentryParams = Type.Object({
  projectId: Type.String({ pattern: '^[0-9]{1,15}$', description: 'The project id of the DSN (the number after the last `/`).' }),
})

export const SentryQuery = Type.Object({
  sentry_key: Type.Optional(Type.String({ description: 'The DSN\'s public key, as the browser SDK sends it.' })),
  sentry_version: Type.Optional(Type.String({ description: 'Protocol version the SDK speaks (7); read and ignored.' })),
  sentry_client: Type.Optional(Type.String({ description: 'The SDK\'s name and version; read and ignored.' })),
}, { additionalProperties: true })

const RATE_LIMIT_HEADERS = {
  'Retry-After': { type: 'integer', description: `Seconds the SDK waits before sending again (${SENTRY_RETRY_SECONDS} when the service cannot store now).` },
  'X-Sentry-Rate-Limits': {
    type: 'string',
    description: 'Every category, for Retry-After seconds: `<seconds>::project:rate_limited` (rate limit), `<seconds>::project:quota_exceeded` '
      + `(daily quota, until the next UTC midnight) or \`${SENTRY_RETRY_SECONDS}::organization:service_unavailable\`.`,
  },
}

/** Error answers of the envelope routes, described as a Sentry SDK reads them. */
export const sentryErrors = {
  400: ref(ErrorBody, { description: 'The envelope (its header, an event item, or its Content-Encoding) cannot be read: `invalid_envelope`.' }),
  401: ref(ErrorBody, { description: 'No DSN key in the query, the X-Sentry-Auth header or the envelope header: `missing_sentry_key`.' }),
  403: ref(ErrorBody, { description: 'The DSN key and project id name no project: `invalid_sentry_key`.' }),
  413: ref(ErrorBody, { description: 'The body, once inflated, or one of its event items is larger than allowed: `payload_too_large`.' }),
  429: ref(ErrorBody, {
    description: 'Nothing was stored: the project is over its ingest rate limit or has spent its daily event quota, or nothing could be '
      + 'stored now (busy, database down, disk full): `rate_limited`. Sentry SDKs wait out `X-Sentry-Rate-Limits` and `Retry-After`; '
      + 'this route never answers a 5xx, which they would count as lost.',
    headers: RATE_LIMIT_HEADERS,
  }),
}

export const sentrySchemas = [SentryAnswer]
