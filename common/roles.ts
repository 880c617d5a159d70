/** The roles, least first: each can do everything the one before it can. Shared so the dashboard shows what the server allows. */
export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const
export type Role = (typeof ROLES)[number]

/** Whether `role` may do what `needed` may. */
export const atLeast = (role: Role | null, needed: Role): boolean => role !== null && ROLES.indexOf(role) >= ROLES.indexOf(needed)
