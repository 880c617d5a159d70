/**
 * A visit as the read API and the dashboard show it: the Session of a list, its detail, its events and their frames.
 * The store maps its rows to these shapes; nothing here knows a table.
 */
import Type, { type Static } from 'typebox'
import { Nullable, ref } from '../util/schema.ts'
import { ResolvedFrameSchema } from './frame.ts'
import { viewFields } from './event.ts'
import { viewFacts } from './visitor.ts'

const DateTime = (description: string) => Type.String({ format: 'date-time', description })

export const ProjectSchema = Type.Object({
  id: Type.String({ description: 'Project identifier' }),
  name: Type.String({ description: 'Project name' }),
  domain: Type.String({ description: 'Site domain' }),
}, { $id: 'Project', title: 'Project', additionalProperties: false })

export const CountersSchema = Type.Object({
  total: Type.Integer({ description: 'All events of the session.' }),
  errors: Type.Integer({ description: 'Events of type ERROR and HTTP_ERROR: a broken visit has errors > 0.' }),
  slow: Type.Integer({ description: 'Events of type SLOW_REQUEST (slow requests and slow resources).' }),
}, { $id: 'EventCounters', title: 'EventCounters', additionalProperties: false })

const sessionFields = {
  id: Type.String({ description: 'Session identifier; used in the path of getSession.' }),
  sessionKey: Type.String({ description: 'Client-side session key.' }),
  startedAt: DateTime('When the session started: its earliest event (ISO 8601 UTC, milliseconds).'),
  lastSeenAt: DateTime('Last activity: its latest event (ISO 8601 UTC, milliseconds).'),
  ...viewFacts(),
  events: ref(CountersSchema),
}

export const SessionSchema = Type.Object(sessionFields, { $id: 'Session', title: 'Session', additionalProperties: false })

export const RecordingSchema = Type.Object({
  available: Type.Boolean({ description: 'Whether a screen recording exists for the session.' }),
  chunks: Type.Integer({ description: 'Number of recording chunks.' }),
}, { $id: 'Recording', title: 'Recording', additionalProperties: false })

export const SessionDetailSchema = Type.Object({ ...sessionFields, recording: ref(RecordingSchema) }, {
  $id: 'SessionDetail', title: 'SessionDetail', additionalProperties: false,
  description: 'Every field of the list session plus `recording`.',
})

export const EventSchema = Type.Object({
  id: Type.String({ description: 'Event identifier, unique within the session.' }),
  type: Type.String({
    description: 'ERROR, HTTP_ERROR, SLOW_REQUEST, NAVIGATION, CLICK, INPUT, USER_REPORT, or a further '
      + 'upper-case type (for example CONSOLE_ERROR).',
  }),
  createdAt: DateTime('When the event happened (ISO 8601 UTC, milliseconds), corrected for the visitor clock skew.'),
  ...viewFields(),
  issueId: Nullable(Type.String({ description: 'The issue (GET /api/v1/issues/{id}) an ERROR, HTTP_ERROR or RAGE_CLICK event was grouped into; null for other types.' })),
  frames: Nullable(Type.Array(ref(ResolvedFrameSchema), {
    description: 'The frames of `stack`, newest first, each mapped to the original source when an uploaded source map '
      + 'matches its script — also for events stored before the map was uploaded, since stacks are mapped when read. '
      + '`stack` keeps the text as the browser sent it. For an event from a server Sentry SDK (docs/sentry.md), the frames as the '
      + 'SDK sent them, unmapped: its `in_app` flags and the source context it read. Null when the event has no stack.',
  })),
}, {
  // Not "Event": a generated client would shadow the DOM's Event.
  $id: 'SessionEvent', title: 'SessionEvent', additionalProperties: false,
  description: 'Fields typed "string" (url, method) are absent when they do not apply; every other field is always '
    + 'present and null when it does not apply. Text longer than its limit ends with "…[truncated N chars]".',
})

/** The API's shapes, as the schemas that serialize them say. */
export type SessionView = Static<typeof SessionSchema>
export type SessionDetailView = Static<typeof SessionDetailSchema>
export type EventView = Static<typeof EventSchema>
