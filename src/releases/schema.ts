import Type, { type Static } from 'typebox'
import { MAX_ENVIRONMENT_LENGTH, MAX_RELEASE_LENGTH } from '../../common/limits.ts'
import { ProjectSchema } from '../contract/index.ts'
import { IssueSchema } from '../issues/schema.ts'
import { nextField, Nullable, pageFields, pageQuery, periodQuery, ref } from '../util/schema.ts'

const DateTime = (description: string) => Type.String({ format: 'date-time', description })
const Rate = (description: string) => Nullable(Type.Number({ minimum: 0, maximum: 1, description }))

export const ReleaseSchema = Type.Object({
  release: Type.String({ description: 'The release name as the SDK sent it (Sentry `attrs.release`, our SDK\'s init option `release`).' }),
  environment: Nullable(Type.String({ description: 'The environment its sessions named; null when they named none.' })),
  sessions: Type.Integer({ description: 'Sessions counted: Sentry sessions (once per sid) and aggregate counts, and our SDK\'s visits.' }),
  crashed: Type.Integer({ description: 'Of them, the sessions that crashed (a visit with an unhandled error).' }),
  errored: Type.Integer({ description: 'Of them, the sessions that ended errored and did not crash (a visit with handled errors only).' }),
  crashFreeRate: Rate('1 − crashed ÷ sessions, a fraction (0.9973); null when there are no sessions.'),
  users: Type.Integer({ description: 'Distinct users (Sentry `did`, our SDK\'s user id) with a session; sessions without one count no user.' }),
  crashFreeUsers: Rate('Users with no crashed session ÷ users, a fraction; null when there are no users.'),
  firstSeenAt: DateTime('The start of its earliest session counted (ISO 8601 UTC, milliseconds).'),
  lastSeenAt: DateTime('The latest activity of its sessions counted.'),
  newIssues: Type.Integer({ description: 'Issues whose first event came from this release and environment.' }),
}, { $id: 'Release', title: 'Release', additionalProperties: false })

const EnvironmentQuery = Type.Optional(Type.String({
  maxLength: MAX_ENVIRONMENT_LENGTH, description: 'Only this environment (as the SDK named it); empty: the sessions that named none.',
}))

export const ReleaseListQuery = Type.Object({
  environment: EnvironmentQuery,
  ...periodQuery('activity (releases first seen before `to` and last seen at or after `from`)'),
  ...pageQuery('releases'),
})
export type ReleaseListQuery = Static<typeof ReleaseListQuery>

export const ReleaseListResponse = Type.Object({
  project: ref(ProjectSchema),
  ...pageFields('release', 'releases'),
  releases: Type.Array(ref(ReleaseSchema), {
    description: 'Newest first: the most recently first seen first, then release and environment descending. A release is listed once per environment.',
  }),
  ...nextField('releases'),
}, { $id: 'ReleaseList', title: 'ReleaseList', additionalProperties: false })

export const ReleaseParams = Type.Object({
  release: Type.String({ minLength: 1, maxLength: MAX_RELEASE_LENGTH, description: 'The release name, URL-encoded (`shop%401.2.3`).' }),
})

export const ReleaseDetailQuery = Type.Object({ environment: EnvironmentQuery })
export type ReleaseDetailQuery = Static<typeof ReleaseDetailQuery>

/** The release's row of the list, its fields at the top as the list's are, then its days and issues. */
export const ReleaseDetailResponse = Type.Object({
  project: ref(ProjectSchema),
  ...ReleaseSchema.properties,
  days: Type.Array(Type.Object({
    day: Type.String({ format: 'date', description: 'A UTC day.' }),
    sessions: Type.Integer({ description: 'Sessions that started on it.' }),
    crashed: Type.Integer({ description: 'Of them, the crashed ones.' }),
    errored: Type.Integer({ description: 'Of them, the errored ones.' }),
  }, { additionalProperties: false }), { description: 'Adoption over time: its sessions per UTC day of their start, oldest first; days without any absent.' }),
  issues: Type.Array(ref(IssueSchema), { description: 'The issues first seen in it, most recently first seen first (at most 100).' }),
}, { $id: 'ReleaseDetail', title: 'ReleaseDetail', additionalProperties: false })

export type ReleaseView = Static<typeof ReleaseSchema>
export type ReleaseListView = Static<typeof ReleaseListResponse>
export type ReleaseDetailView = Static<typeof ReleaseDetailResponse>

/** Schemas referenced by $id; registered once with app.addSchema. */
export const releaseSchemas = [ReleaseSchema, ReleaseListResponse, ReleaseDetailResponse]

/** Issues listed with a release at most. */
export const RELEASE_ISSUES = 100
