import Type, { type Static } from 'typebox'
import { inputFacts, inputFields, RecordingUpload, ResolvedFrameSchema, TYPE_PATTERN } from '../contract/index.ts'
import { MAX_ISSUE_ID_LENGTH } from '../contract/limits.ts'
import { SENTRY_MAX_CHAIN } from '../sentry/limits.ts'
import { MAX_FRAMES } from '../sourcemaps/stack.ts'
import { Nullable } from '../util/schema.ts'

/** One event in an NDJSON line: the getSession event shape. */
export const TransferEvent = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  type: Type.String({ pattern: TYPE_PATTERN }),
  createdAt: Type.String({ maxLength: 40 }),
  ...inputFields(),
  /** Exported with the event; import groups the events again, so the value is not used. */
  issueId: Type.Optional(Nullable(Type.String({ maxLength: MAX_ISSUE_ID_LENGTH }))),
  /** The frames a server Sentry SDK sent (contract SdkFrames), with their source context: absent for other events. */
  frames: Type.Optional(Type.Array(Type.Object(ResolvedFrameSchema.properties, { additionalProperties: false }), { maxItems: MAX_FRAMES * SENTRY_MAX_CHAIN })),
}, { additionalProperties: false })

/**
 * One NDJSON line of import/export: the getSession session object with `events` holding the
 * event array instead of the counters, which import recomputes from the events.
 */
export const TransferLine = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
  sessionKey: Type.String({ minLength: 1, maxLength: 128, pattern: '^[^\\u0000]+$' }),
  startedAt: Type.String({ maxLength: 40 }),
  lastSeenAt: Type.String({ maxLength: 40 }),
  ...inputFacts(),
  recording: Type.Optional(Type.Object({ available: Type.Boolean(), chunks: Type.Integer({ minimum: 0 }) })),
  events: Type.Array(TransferEvent),
  /** Stored screen recording chunks, as uploaded (base64 gzip); startedAt keeps their clock correction. */
  recordingChunks: Type.Optional(Type.Array(Type.Object({
    ...RecordingUpload.properties,
    startedAt: Type.String({ maxLength: 40 }),
  }, { additionalProperties: false }))),
}, { additionalProperties: false })

export type TransferLine = Static<typeof TransferLine>
export type TransferEvent = Static<typeof TransferEvent>
