import Type, { type Static } from 'typebox'
import { MAX_CHUNKS_PER_BATCH, MAX_EVENTS_PER_BATCH, MAX_PAGE_URL_LENGTH } from './limits.ts'
import { MAX_ENVIRONMENT_LENGTH, MAX_RELEASE_LENGTH } from '../../common/limits.ts'
import { EVENT_FIELDS, inputFields } from './event.ts'
import { KNOWN_TYPES, REQUIRED_FIELDS, TYPE_PATTERN, type KnownType } from './event-types.ts'
import { RecordingUpload } from './recording.ts'
import { Nullable, ref } from '../util/schema.ts'
import { TagsSchema, VisitorUser } from './visitor.ts'
import { INSTANT_PATTERN } from '../util/time.ts'

/** 9999-12-31T23:59:59.999Z: the last instant ISO 8601 (and the API) can print. */
export const MAX_EPOCH_MS = 253_402_300_799_999

/**
 * Epoch milliseconds or an ISO 8601 string parseInstant reads. One schema with a type array, not
 * anyOf: each keyword applies to its own type (minimum to numbers, pattern to strings), ajv checks
 * it in one pass, and its errors name the field rather than "must match a schema in anyOf".
 */
const Instant = (description: string) => Type.Unsafe<number | string>({
  type: ['number', 'string'], minimum: 0, maximum: MAX_EPOCH_MS, maxLength: 40, pattern: INSTANT_PATTERN, description,
})

/** Each known type's required fields, present and not null, as schemas (from REQUIRED_FIELDS). */
const requiredOf = (type: KnownType) => ({
  required: [...REQUIRED_FIELDS[type]],
  properties: Object.fromEntries(REQUIRED_FIELDS[type].map((field) => [field, { type: EVENT_FIELDS[field].type }])),
})

/**
 * The per-type rule, twice from one table: `if type is X then its fields` gives the server's
 * errors ("events[0] (ERROR) needs message"); the `oneOf` after it (reached only when every `if`
 * holds, so it never fails on its own) describes the same rule in a form generated clients type:
 * one member per known type, and one for any other type.
 */
const typeRules = [
  ...KNOWN_TYPES.map((type) => ({ if: { properties: { type: { const: type } } }, then: requiredOf(type) })),
  {
    oneOf: [
      ...KNOWN_TYPES.map((type) => {
        const { required, properties } = requiredOf(type)
        return { title: `${type} event`, required: ['type', ...required], properties: { type: { const: type }, ...properties } }
      }),
      { title: 'Other event type', properties: { type: { not: { enum: [...KNOWN_TYPES] } } } },
    ],
  },
]

const TOKEN = '^[A-Za-z0-9_.:-]+$'

export const IngestEvent = Type.Object({
  id: Type.Optional(Type.String({
    minLength: 1, maxLength: 100, pattern: TOKEN,
    description: 'Client event id, unique within the session. Default: "<batchId>-<index>". A repeated id is a duplicate and is skipped.',
  })),
  type: Type.String({ pattern: TYPE_PATTERN, description: `${KNOWN_TYPES.join(', ')} or a further upper-case type.` }),
  createdAt: Type.Optional(Instant('When it happened on the visitor clock: epoch milliseconds or ISO 8601. Default: the time the batch arrived.')),
  ...inputFields(),
  // The SDK sends what the page used (fetch takes "post"); it is stored upper case.
  method: Type.Optional(Nullable(Type.String({ ...EVENT_FIELDS.method, pattern: '^[A-Za-z]*$' }))),
}, {
  $id: 'IngestEvent', title: 'IngestEvent', additionalProperties: false, allOf: typeRules,
  description: 'Required per known type — ERROR, CLICK, INPUT, USER_REPORT: message; HTTP_ERROR: url, method; '
    + 'SLOW_REQUEST: url, durationMs; NAVIGATION: url; RAGE_CLICK: selector, count; DEAD_CLICK: selector; WEB_VITAL: '
    + 'name, value. RAGE_CLICK, DEAD_CLICK and WEB_VITAL without a message get a caption as message ("Rage click ×6 on '
    + 'Pay now", "LCP 4.2 s (poor)"). Unknown fields are dropped. Secrets in every text field are '
    + 'masked on the server as well, as "***": secret JSON keys and query, fragment and form parameters (password, token, '
    + 'access_token, api_key, secret, code, sig, jwt, session, cookie, authorization, …), GraphQL arguments such as '
    + 'password: "…", Bearer and Basic credentials and a URL\'s password; Luhn-valid payment card numbers become '
    + '"[card …1234]" (last four digits kept).',
})
export type IngestEvent = Static<typeof IngestEvent>

/** Tags of a visit (Sessionwatch.setTags). */
export const VisitTags = { ...TagsSchema, $id: 'VisitTags', title: 'VisitTags' }

export const IngestBody = Type.Object({
  key: Type.Optional(Type.String({ description: 'The ingest key, for beacons that cannot set headers.' })),
  sessionKey: Type.String({ minLength: 8, maxLength: 128, pattern: TOKEN, description: 'Client-side session key (sessionStorage).' }),
  batchId: Type.String({
    minLength: 1, maxLength: 100, pattern: TOKEN,
    description: 'Unique per batch and kept across retries: a resent batch maps onto the events already stored.',
  }),
  sentAt: Type.Optional(Instant('The visitor clock when the batch was sent; corrects event times for clock skew.')),
  page: Type.Optional(Type.String({ maxLength: MAX_PAGE_URL_LENGTH, description: 'Landing page URL; its utm_* and click-id tags become the session utm.' })),
  events: Type.Array(ref(IngestEvent), { maxItems: MAX_EVENTS_PER_BATCH }),
  user: Type.Optional(ref(VisitorUser, { description: 'The identified user (Sessionwatch.identify); the latest batch that carries one sets the session\'s.' })),
  tags: Type.Optional(ref(VisitTags, { description: 'The visit\'s tags (Sessionwatch.setTags), all of them: the latest batch that carries tags sets the session\'s.' })),
  release: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_RELEASE_LENGTH, description: 'The site\'s release (init option `release`); the latest batch that carries one sets the session\'s.' })),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_ENVIRONMENT_LENGTH, description: 'The site\'s environment (init option `environment`, e.g. production); the latest batch that carries one sets the session\'s.' })),
  recording: Type.Optional(Type.Array(ref(RecordingUpload), {
    maxItems: MAX_CHUNKS_PER_BATCH,
    description: 'Screen recording chunks of this session (the SDK sends them with an empty `events`).',
  })),
}, { $id: 'IngestBatch', title: 'IngestBatch', additionalProperties: false })
export type IngestBody = Static<typeof IngestBody>

export const IngestQuery = Type.Object({
  key: Type.Optional(Type.String({ description: 'The ingest key, for beacons that cannot set headers.' })),
})

/** One recording chunk sent as raw bytes (POST /ingest/v1/recording): what a batch would say about it, in the query. */
export const RecordingChunkQuery = Type.Object({
  key: IngestQuery.properties.key,
  sessionKey: IngestBody.properties.sessionKey,
  chunk: Type.String({ ...RecordingUpload.properties.id, description: 'The chunk id, unique within the session; a retried upload with the same id is stored once.' }),
  sentAt: Type.Optional(Type.Integer({ minimum: 0, description: 'The visitor clock when the chunk was sent, in epoch milliseconds; corrects its times for clock skew.' })),
  page: IngestBody.properties.page,
  mode: RecordingUpload.properties.mode,
}, { additionalProperties: false })
export type RecordingChunkQuery = Static<typeof RecordingChunkQuery>

export const IngestResponse = Type.Object({
  sessionId: Nullable(Type.String({
    description: 'The session the events were stored in. A batch with no events and no recording stores nothing: '
      + 'this is then the visitor\'s live session, or null when there is none yet.',
  })),
  accepted: Type.Integer({ description: 'Events stored by this request.' }),
  duplicates: Type.Integer({ description: 'Events skipped because they were already stored (a retried batch).' }),
  recording: Type.Optional(Type.Object({
    accepted: Type.Integer({ description: 'Chunks stored by this request.' }),
    duplicates: Type.Integer({ description: 'Chunks already received (stored or dropped) under the same id.' }),
    dropped: Type.Integer({ description: 'Chunks refused by the per-chunk or per-session size limit; counted on the session.' }),
    full: Type.Boolean({
      description: 'True when a chunk of this request was refused because the session reached RECORDING_MAX_SESSION_BYTES: '
        + 'the session stores no more recording, and the SDK stops uploading it.',
    }),
  }, { additionalProperties: false, description: 'Present when the request carried recording chunks.' })),
}, { $id: 'IngestResult', title: 'IngestResult', additionalProperties: false })

export const ingestSchemas = [IngestEvent, VisitorUser, VisitTags, IngestBody, IngestResponse]
