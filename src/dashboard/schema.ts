import Type, { type Static } from 'typebox'
import { IssueParams } from '../issues/schema.ts'
import {
  DASHBOARD_PAGE_SIZE, IP_STORAGE_MODES, MAX_LIMIT, MAX_MASK_FIELD_LENGTH, MAX_MASK_FIELDS, MAX_OFFSET, MAX_PROJECT_NAME_LENGTH, MAX_RETENTION_DAYS,
  MIN_RETENTION_DAYS,
} from '../../common/limits.ts'
import type { IpStorage } from '../privacy/ip.ts'

export const SignInBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false })

const projectFields = {
  name: Type.String({ minLength: 1, maxLength: MAX_PROJECT_NAME_LENGTH }),
  domain: Type.String({ minLength: 1, maxLength: 260 }),
  retentionDays: Type.Integer({ minimum: MIN_RETENTION_DAYS, maximum: MAX_RETENTION_DAYS }),
  ipStorage: Type.Unsafe<IpStorage | null>({
    type: ['string', 'null'], enum: [...IP_STORAGE_MODES, null], description: `${IP_STORAGE_MODES.join(', ')}, or null for the server's IP_STORAGE.`,
  }),
  // Bounded again, with a message naming the entry, by the service (projects/service.ts), which the CLI calls too.
  maskFields: Type.Array(Type.String({ maxLength: MAX_MASK_FIELD_LENGTH }), { maxItems: MAX_MASK_FIELDS }),
}
export const NewProjectBody = Type.Object({
  name: projectFields.name, domain: projectFields.domain, retentionDays: Type.Optional(projectFields.retentionDays),
  ipStorage: Type.Optional(projectFields.ipStorage), maskFields: Type.Optional(projectFields.maskFields),
}, { additionalProperties: false })
export const ProjectPatchBody = Type.Partial(Type.Object(projectFields), { additionalProperties: false, minProperties: 1 })
export type ProjectPatchBody = Static<typeof ProjectPatchBody>

export const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 100 }) })
export const IssueInProjectParams = Type.Object({ ...ProjectParams.properties, ...IssueParams.properties })
export const SessionsQuery = Type.Object({
  date: Type.Optional(Type.String({ format: 'date' })),
  errors: Type.Optional(Type.Boolean({ description: 'Only sessions with errors.' })),
  recording: Type.Optional(Type.Boolean({ description: 'Only sessions with a screen recording.' })),
  issue: Type.Optional(IssueParams.properties.id),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DASHBOARD_PAGE_SIZE })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 })),
})
export type SessionsQuery = Static<typeof SessionsQuery>
