import Type, { type Static } from 'typebox'
import { Nullable } from '../util/schema.ts'

/** What the audit trail records; docs/accounts.md explains each. */
export const AUDIT_ACTIONS = [
  'sign_in', 'sign_in_failed', 'sign_out', 'sign_in_ended',
  'visit_viewed', 'replay_viewed', 'issue_viewed',
  'erase', 'keys_rotated', 'upload_key_rotated', 'settings_changed', 'project_created', 'issue_status_changed',
  'issue_assigned', 'issue_commented', 'public_link_created', 'public_link_revoked', 'public_replay_viewed',
  'webhook_added', 'webhook_removed',
  'user_invited', 'role_changed', 'user_removed', 'user_renamed', 'password_link_made', 'password_set', 'password_reset',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export const MAX_AUDIT_PAGE = 200

export const AuditQuery = Type.Object({
  project: Type.Optional(Type.String({ maxLength: 100, description: 'Only lines about this project.' })),
  user: Type.Optional(Type.String({ maxLength: 320, description: 'Only what this person did (their email).' })),
  since: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD: lines from that UTC day on.' })),
  before: Type.Optional(Type.Integer({ minimum: 1, description: 'Paging: lines older than this id (the `next` of the page before).' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AUDIT_PAGE, default: 50 })),
}, { additionalProperties: false })
export type AuditQuery = Static<typeof AuditQuery>

export const AuditLine = Type.Object({
  id: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
  actor: Type.String({ description: 'The account\'s email when it acted, `cli`, or the login a failed sign-in gave.' }),
  userId: Nullable(Type.String()),
  action: Type.String(),
  projectId: Nullable(Type.String()),
  target: Nullable(Type.String()),
  detail: Nullable(Type.Record(Type.String(), Type.Unknown())),
  ip: Nullable(Type.String()),
})
export type AuditLine = Static<typeof AuditLine>

export const AuditList = Type.Object({
  lines: Type.Array(AuditLine),
  next: Nullable(Type.Integer({ description: 'Pass as `before` for older lines; null at the end.' })),
})
export type AuditList = Static<typeof AuditList>
