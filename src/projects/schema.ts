import Type from 'typebox'

/** A project named in a dashboard path (`/api/dashboard/projects/{projectId}/…`). */
export const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 100 }) })
