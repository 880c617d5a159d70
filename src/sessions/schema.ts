import Type, { type Static } from 'typebox'
import { MAX_ISSUE_ID_LENGTH, MAX_SESSION_ID_LENGTH } from '../contract/limits.ts'
import { MAX_META_KEY_LENGTH, MAX_META_VALUE_LENGTH, MAX_SEARCH_LENGTH, MAX_USER_ID_LENGTH, MIN_SEARCH_LENGTH } from '../../common/limits.ts'
import { MAX_SEARCH_WORDS } from './limits.ts'
import { SEARCH_INDEXED_CHARS, SEARCH_TEXT_MATCH_LIMIT, SEARCH_TEXT_PROBE_MAX } from '../search/limits.ts'
import { CountersSchema, EventSchema, ProjectSchema, RecordingSchema, SessionDetailSchema, SessionSchema, TYPE_PATTERN } from '../contract/index.ts'
import { VITAL_NAMES, VITAL_RATINGS } from '../../common/vitals.ts'
import { describedPattern, nextField, pageQuery, periodQuery } from '../util/schema.ts'

/** `tag.<key>`: a tag filter's parameter name (keys as META_KEY_PATTERN allows). */
export const TAG_PARAM = `^tag\\.[A-Za-z0-9_.:-]{1,${MAX_META_KEY_LENGTH}}$`

/**
 * `tag.<key>` as the OpenAPI document lists it. A parameter per tag key has no fixed name, and OpenAPI names each
 * parameter: the family is one object parameter in the form style, each of its properties a parameter of its own
 * (`{"tag.plan":"pro"}` is sent as `tag.plan=pro`), so clients and fuzzers send the names the server reads. The list
 * route validates them through ListQuery's patternProperties.
 */
export const TAG_PARAMETER = {
  name: 'tags', in: 'query', required: false, style: 'form', explode: true,
  description: 'Only visits tagged key=value by Sessionwatch.setTags at some point of the visit: one parameter `tag.<key>=<value>` per tag, '
    + `e.g. \`tag.plan=pro\`. Keys are letters, digits and \`_ . : -\` (up to ${MAX_META_KEY_LENGTH} characters), values 1 to `
    + `${MAX_META_VALUE_LENGTH} characters; several tag parameters must all hold.`,
  schema: {
    type: 'object', propertyNames: { pattern: TAG_PARAM },
    additionalProperties: { type: 'string', minLength: 1, maxLength: MAX_META_VALUE_LENGTH },
  },
  example: { 'tag.plan': 'pro' },
}

/** `vital`: a metric and a rating, as WEB_VITAL events name them; a 400 lists both. */
const VITAL_PATTERN = describedPattern(`^(${VITAL_NAMES.join('|')}):(${VITAL_RATINGS.join('|')})$`,
  `METRIC:RATING, METRIC one of ${VITAL_NAMES.join(', ')} and RATING one of ${VITAL_RATINGS.join(', ')}`)

/** The list's search parameters (API v1 extensions): each narrows the list, all must hold, `total` counts exactly what matches. */
const searchQuery = {
  errors: Type.Optional(Type.Literal('true', { description: 'Only visits with at least one ERROR or HTTP_ERROR. Leave it out for every visit.' })),
  recording: Type.Optional(Type.Literal('true', { description: 'Only visits with a stored screen recording. Leave it out for every visit.' })),
  user: Type.Optional(Type.String({
    minLength: 1, maxLength: MAX_USER_ID_LENGTH, description: 'Only visits identified as this user id (Sessionwatch.identify), exactly; the latest identify of a visit counts.',
  })),
  country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Only visits from this ISO 3166 alpha-2 country (either case).', examples: ['DE'] })),
  browser: Type.Optional(Type.String({
    minLength: 1, maxLength: 100, description: 'Only visits with this browser family, as the Session\'s `browser` names it (Chrome, Firefox, Safari, Microsoft Edge, …), in any case.',
  })),
  os: Type.Optional(Type.String({
    minLength: 1, maxLength: 100, description: 'Only visits with this operating system family, as the Session\'s `os` names it (Windows, macOS, iOS, Android, Linux, …), in any case.',
  })),
  url: Type.Optional(Type.String({
    minLength: MIN_SEARCH_LENGTH, maxLength: MAX_SEARCH_LENGTH,
    description: `Only visits with a page (the entry page, or the URL of a NAVIGATION, WEB_VITAL, RAGE_CLICK or DEAD_CLICK) whose URL contains this text, in any case; ${MIN_SEARCH_LENGTH} to ${MAX_SEARCH_LENGTH} characters.`,
    examples: ['/checkout'],
  })),
  q: Type.Optional(Type.String({
    minLength: MIN_SEARCH_LENGTH, maxLength: MAX_SEARCH_LENGTH,
    description: 'Full-text search over the visit\'s event messages (but a WEB_VITAL\'s caption: vital= finds it) and URLs, its pages, and its user id and traits, in any case. '
      + 'Words separated by spaces must all occur in the visit (anywhere, as parts of words too); a "quoted phrase" must occur as written. '
      + `Each word or phrase ${MIN_SEARCH_LENGTH}+ characters, at most ${MAX_SEARCH_WORDS}; the first ${SEARCH_INDEXED_CHARS} characters of each message or URL are searched. `
      + `A word found in more than ${SEARCH_TEXT_MATCH_LIMIT} of the project's rows of text answers 400 unless other filters or a range leave at most `
      + `${SEARCH_TEXT_PROBE_MAX} visits to search.`,
    examples: ['checkout "Cannot read properties"'],
  })),
  type: Type.Optional(Type.String({ pattern: TYPE_PATTERN, description: 'Only visits with an event of this type, e.g. USER_REPORT or CONSOLE_ERROR.', examples: ['USER_REPORT'] })),
  status: Type.Optional(Type.String({
    pattern: '^([1-5][0-9][0-9]|[1-5][xX][xX])$',
    description: 'Only visits with an HTTP_ERROR of this status code (e.g. 502), or of this class (4xx, 5xx).', examples: ['5xx'],
  })),
  vital: Type.Optional(Type.Array(Type.String({ pattern: VITAL_PATTERN }), {
    description: `Only visits with a WEB_VITAL of this metric and rating, e.g. \`LCP:poor\` (metrics ${VITAL_NAMES.join(', ')}; ratings `
      + `${VITAL_RATINGS.join(', ')}). Repeat it for visits that had each: \`vital=LCP:poor&vital=INP:poor\`.`,
    examples: [['LCP:poor']],
  })),
}

export const ListQuery = Type.Object({
  date: Type.Optional(Type.String({
    format: 'date', description: 'YYYY-MM-DD: sessions that started on that UTC day. Overrides from and to.', examples: ['2026-11-20'],
  })),
  ...periodQuery('startedAt'),
  issue: Type.Optional(Type.String({
    minLength: 1, maxLength: MAX_ISSUE_ID_LENGTH,
    description: 'Only the visits that hit this issue (an id from listIssues); an unknown id lists none.',
  })),
  ...searchQuery,
  ...pageQuery('sessions'),
}, {
  // `tag.<key>=<value>`: a parameter per tag key, which a fixed list of names cannot declare.
  patternProperties: { [TAG_PARAM]: Type.String({ minLength: 1, maxLength: MAX_META_VALUE_LENGTH }) },
})
export type ListQuery = Static<typeof ListQuery>

export const ListResponse = Type.Object({
  project: Type.Ref('Project'),
  total: Type.Integer({ description: 'Sessions matching the filter in total, ignoring limit and offset.' }),
  limit: Type.Integer({ description: 'Limit applied.' }),
  offset: Type.Integer({ description: 'Offset applied: the position of the first session of the page, also of a page after a cursor.' }),
  sessions: Type.Array(Type.Ref('Session'), {
    description: 'Most recent activity first: lastSeenAt descending, then id descending.',
  }),
  ...nextField('sessions'),
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


/** Schemas referenced by $id; registered once with app.addSchema. */
export const sharedSchemas = [
  ProjectSchema, CountersSchema, SessionSchema, RecordingSchema, SessionDetailSchema, EventSchema, ListResponse, DetailResponse,
]
