import Type, { type Static } from 'typebox'
import { ProjectParams } from '../projects/schema.ts'
import { IssueParams } from '../issues/schema.ts'
import { ListQuery } from '../sessions/schema.ts'
import { SessionDetailSchema } from '../contract/index.ts'
import { nextField, Nullable } from '../util/schema.ts'
import { IP_STORAGE_MODES, MAX_DAILY_EVENT_QUOTA, MAX_INGEST_RATE_LIMIT, MAX_MASK_FIELD_LENGTH, MAX_MASK_FIELDS, MAX_PROJECT_NAME_LENGTH, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../../common/limits.ts'
import { MAX_HEADLINE_LENGTH } from './limits.ts'
import type { IpStorage } from '../privacy/ip.ts'

export const SignInBody = Type.Object({
  login: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'An email, or the first owner\'s name (`admin` until renamed); absent: the first owner.' })),
  password: Type.String({ minLength: 1, maxLength: 1000 }),
}, { additionalProperties: false })

const projectFields = {
  name: Type.String({ minLength: 1, maxLength: MAX_PROJECT_NAME_LENGTH }),
  domain: Type.String({ minLength: 1, maxLength: 260 }),
  retentionDays: Type.Integer({ minimum: MIN_RETENTION_DAYS, maximum: MAX_RETENTION_DAYS }),
  ipStorage: Type.Unsafe<IpStorage | null>({
    type: ['string', 'null'], enum: [...IP_STORAGE_MODES, null], description: `${IP_STORAGE_MODES.join(', ')}, or null for the server's IP_STORAGE.`,
  }),
  // Bounded again, with a message naming the entry, by the service (projects/service.ts), which the CLI calls too.
  maskFields: Type.Array(Type.String({ maxLength: MAX_MASK_FIELD_LENGTH }), { maxItems: MAX_MASK_FIELDS }),
  ingestRateLimit: Nullable(Type.Integer({
    minimum: 0, maximum: MAX_INGEST_RATE_LIMIT, description: 'Ingest requests per second per process; 0: no limit; null: the server\'s INGEST_RATE_LIMIT.',
  })),
  dailyEventQuota: Nullable(Type.Integer({ minimum: 1, maximum: MAX_DAILY_EVENT_QUOTA, description: 'Events accepted per UTC day; null: no quota.' })),
  recordingBudget: Nullable(Type.Integer({
    minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Compressed recording bytes kept, the oldest recordings deleted beyond it; null: no budget.',
  })),
  publicReplays: Type.Boolean({ description: 'Whether members may make public links to one visit\'s replay; turning it off stops every link at once.' }),
}
export const NewProjectBody = Type.Object({
  name: projectFields.name, domain: projectFields.domain, retentionDays: Type.Optional(projectFields.retentionDays),
  ipStorage: Type.Optional(projectFields.ipStorage), maskFields: Type.Optional(projectFields.maskFields),
  ingestRateLimit: Type.Optional(projectFields.ingestRateLimit), dailyEventQuota: Type.Optional(projectFields.dailyEventQuota),
  recordingBudget: Type.Optional(projectFields.recordingBudget),
}, { additionalProperties: false })
export const ProjectPatchBody = Type.Partial(Type.Object(projectFields), { additionalProperties: false, minProperties: 1 })
export type ProjectPatchBody = Static<typeof ProjectPatchBody>

/** A project's daily event quota and what it has counted today (UTC); its recording bytes, budget and what the budget evicted. */
export const ProjectUsage = Type.Object({
  day: Type.String({ description: 'Today, UTC, YYYY-MM-DD.' }),
  events: Type.Integer({ description: 'Events the quota counted today; none are counted while the project has no quota.' }),
  dailyEventQuota: Nullable(Type.Integer()),
  recordingBytes: Type.Integer({ description: 'Compressed recording bytes the project holds now, in every store.' }),
  recordingBudget: Nullable(Type.Integer()),
  evictedVisits: Type.Integer({ description: 'Visits whose recording the budget or the disk floor deleted (they and their events stay).' }),
  evictedBytes: Type.Integer({ description: 'Compressed recording bytes those deletions freed.' }),
}, { additionalProperties: false })
export type ProjectUsage = Static<typeof ProjectUsage>

export const IssueInProjectParams = Type.Object({ ...ProjectParams.properties, ...IssueParams.properties })
/**
 * The dashboard's sessions list takes the read API's parameters, the same schema: its search box and filter chips
 * map one to one onto them, and its URL carries them as the API spells them.
 */
export const SessionsQuery = ListQuery
export type SessionsQuery = ListQuery

/** An event that says what happened in a visit: its type and message, or for a failed request its method, URL and status. */
export const Headline = Type.Object({
  type: Type.String(),
  message: Nullable(Type.String({ description: `The message, cut to ${MAX_HEADLINE_LENGTH} characters.` })),
  url: Nullable(Type.String({ description: `The URL, cut to ${MAX_HEADLINE_LENGTH} characters.` })),
  method: Nullable(Type.String()),
  statusCode: Nullable(Type.Integer()),
}, { additionalProperties: false })
export type Headline = Static<typeof Headline>

/** A row of the dashboard's list: the API's session with its recording, and what broke in it. */
export const DashboardSession = Type.Object({
  ...SessionDetailSchema.properties,
  firstError: Nullable(Type.Object(Headline.properties, {
    additionalProperties: false,
    description: 'The visit\'s first ERROR, HTTP_ERROR, RAGE_CLICK or DEAD_CLICK, whichever came first; a click\'s message is its caption ("Rage click ×6 on Pay now").',
  })),
  firstReport: Nullable(Type.Object(Headline.properties, { additionalProperties: false, description: 'The visit\'s first USER_REPORT.' })),
}, { additionalProperties: false })
export type DashboardSession = Static<typeof DashboardSession>

export const DashboardSessionList = Type.Object({
  total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer(), sessions: Type.Array(DashboardSession), ...nextField('sessions'),
}, { additionalProperties: false })
export type DashboardSessionList = Static<typeof DashboardSessionList>
