import Type, { type Static } from 'typebox'
import { MAX_SESSION_ID_LENGTH } from '../contract/limits.ts'
import { MAX_USER_ID_LENGTH } from '../../common/limits.ts'
import { Nullable } from '../util/schema.ts'

/*
 * The dashboard's erase route (POST /app/api/projects/:projectId/erase): its body and its answer. Hidden from the
 * public OpenAPI document like every dashboard route.
 */

export const EraseBody = Type.Object({
  sessionId: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SESSION_ID_LENGTH, description: 'One visit, by its id.' })),
  ip: Type.Optional(Type.String({
    minLength: 1, maxLength: 100, description: 'Every visit whose stored IP address is this one (a truncating project stores the network: 203.0.113.0).',
  })),
  userId: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_USER_ID_LENGTH, description: 'Every visit identified as this user.' })),
}, { additionalProperties: false, description: 'Exactly one of sessionId, ip and userId.' })
export type EraseBody = Static<typeof EraseBody>

export const EraseResult = Type.Object({
  erased: Type.Integer({ minimum: 0, description: 'Visits deleted, with their events and recordings.' }),
  note: Nullable(Type.String({ description: 'Why an IP address may have matched nothing: the project does not store full addresses.' })),
}, { additionalProperties: false })
export type EraseResult = Static<typeof EraseResult>
