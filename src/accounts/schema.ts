import Type, { type Static } from 'typebox'
import { Nullable } from '../util/schema.ts'
import { MIN_PASSWORD_LENGTH } from '../../common/limits.ts'
import { NullableRole, RoleSchema } from './roles.ts'

export const ProjectRoleSchema = Type.Object({ projectId: Type.String(), role: RoleSchema })

export const PersonSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Nullable(Type.String()),
  role: NullableRole,
  projects: Type.Array(ProjectRoleSchema),
  hasPassword: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  lastSignInAt: Nullable(Type.String({ format: 'date-time' })),
})
export type PersonView = Static<typeof PersonSchema>

export const PeopleList = Type.Object({ people: Type.Array(PersonSchema) })

export const NewPersonBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 320 }),
  role: RoleSchema,
  projects: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 1000, description: 'Absent: the role on every project.' })),
}, { additionalProperties: false })

export const PersonPatchBody = Type.Object({
  role: RoleSchema,
  projects: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 1000 })),
}, { additionalProperties: false })

export const UserParams = Type.Object({ userId: Type.String({ maxLength: 100 }) })
export const SignInParams = Type.Object({ signInId: Type.String({ maxLength: 100 }) })
export const LinkParams = Type.Object({ token: Type.String({ maxLength: 100 }) })

export const Invitation = Type.Object({
  person: PersonSchema,
  inviteUrl: Type.String({ description: 'The one-time link to set a password: give it to the person.' }),
  expiresAt: Type.String({ format: 'date-time' }),
  emailed: Type.Boolean({ description: 'Whether the link was mailed to the person (SMTP_URL set and the mail server took it).' }),
  emailError: Nullable(Type.String({ description: 'Why the mail did not go, when SMTP_URL is set; the link works either way.' })),
})

export const PasswordLink = Type.Object({ email: Type.String(), inviteUrl: Type.String(), expiresAt: Type.String({ format: 'date-time' }) })

export const SetPasswordBody = Type.Object({
  password: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 1000, description: `At least ${MIN_PASSWORD_LENGTH} characters.` }),
}, { additionalProperties: false })

export const SignInView = Type.Object({
  id: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  userAgent: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  current: Type.Boolean({ description: 'The sign-in of the browser asking.' }),
})
export const SignInList = Type.Object({ signIns: Type.Array(SignInView) })

export const Me = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: NullableRole,
  projects: Type.Array(ProjectRoleSchema),
})
