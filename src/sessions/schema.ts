import Type, { type Static } from 'typebox'
import { MAX_ISSUE_ID_LENGTH, MAX_SESSION_ID_LENGTH } from '../../common/limits.ts'
import { Nullable, pageQuery, periodQuery, ref } from '../shared/schema.ts'
import { ResolvedFrameSchema } from '../sourcemaps/schema.ts'
import { viewFields } from '../events/schema.ts'
import { viewFacts } from '../visits/facts.ts'

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
  issueId: Nullable(Type.String({ description: 'The issue (GET /api/v1/issues/{id}) an ERROR or HTTP_ERROR event was grouped into; null for other types.' })),
  frames: Nullable(Type.Array(ref(ResolvedFrameSchema), {
    description: 'The frames of `stack`, newest first, each mapped to the original source when an uploaded source map '
      + 'matches its script — also for events stored before the map was uploaded, since stacks are mapped when read. '
      + '`stack` keeps the text as the browser sent it. Null when the event has no stack.',
  })),
}, {
  // Not "Event": a generated client would shadow the DOM's Event.
  $id: 'SessionEvent', title: 'SessionEvent', additionalProperties: false,
  description: 'Fields typed "string" (url, method) are absent when they do not apply; every other field is always '
    + 'present and null when it does not apply. Text longer than its limit ends with "…[truncated N chars]".',
})

export const ListQuery = Type.Object({
  date: Type.Optional(Type.String({
    format: 'date', description: 'YYYY-MM-DD: sessions that started on that UTC day. Overrides from and to.', examples: ['2026-11-20'],
  })),
  ...periodQuery('startedAt'),
  issue: Type.Optional(Type.String({
    minLength: 1, maxLength: MAX_ISSUE_ID_LENGTH,
    description: 'Only the visits that hit this issue (an id from listIssues); an unknown id lists none.',
  })),
  ...pageQuery('sessions'),
})
export type ListQuery = Static<typeof ListQuery>

export const ListResponse = Type.Object({
  project: Type.Ref('Project'),
  total: Type.Integer({ description: 'Sessions matching the filter in total, ignoring limit and offset.' }),
  limit: Type.Integer({ description: 'Limit applied.' }),
  offset: Type.Integer({ description: 'Offset applied.' }),
  sessions: Type.Array(Type.Ref('Session'), {
    description: 'Most recent activity first: lastSeenAt descending, then id descending.',
  }),
}, { $id: 'SessionList', title: 'SessionList', additionalProperties: false })

export const SessionParams = Type.Object({
  id: Type.String({ description: 'Session identifier from the list response.', maxLength: MAX_SESSION_ID_LENGTH }),
})

export const DetailResponse = Type.Object({
  project: Type.Ref('Project'),
  session: Type.Ref('SessionDetail'),
  events: Type.Array(Type.Ref('SessionEvent'), {
    description: 'All events in the order they happened (createdAt ascending; equal times keep the order received).',
  }),
}, { $id: 'SessionDetailResponse', title: 'SessionDetailResponse', additionalProperties: false })

/** The API's shapes, as the schemas that serialize them say. */
export type SessionView = Static<typeof SessionSchema>
export type SessionDetailView = Static<typeof SessionDetailSchema>
export type EventView = Static<typeof EventSchema>

/** Schemas referenced by $id; registered once with app.addSchema. */
export const sharedSchemas = [
  ProjectSchema, CountersSchema, SessionSchema, RecordingSchema, SessionDetailSchema, EventSchema, ListResponse, DetailResponse,
]
