import Type from 'typebox'
import { atLeast, ROLES, type Role } from '../../common/roles.ts'

export { atLeast, ROLES, type Role }

export const RoleSchema = Type.Unsafe<Role>({
  type: 'string', enum: [...ROLES],
  description: 'viewer: read; member: + resolve, ignore, reopen, assign and comment on issues; admin: + project settings, keys, '
    + 'webhooks, source maps, erase; owner: admin of every project + people, single sign-on, new projects.',
})

/** A role, or null for none (a person whose roles are per project has none on every project). */
export const NullableRole = Type.Unsafe<Role | null>({ type: ['string', 'null'], enum: [...ROLES, null], description: 'The role on every project; null: roles per project only.' })

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value)

/** The higher of two roles (null: none). */
export const higher = (a: Role | null, b: Role | null): Role | null => (a === null ? b : b === null ? a : atLeast(a, b) ? a : b)
