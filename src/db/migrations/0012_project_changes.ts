import { sql, type Kysely, type Migration } from 'kysely'
import type { Target } from './target.ts'

/** The channel the service listens on (src/db/changes.ts). */
const PROJECTS_CHANNEL = 'sessionwatch_projects'

/**
 * PostgreSQL: every statement that changes a project notifies PROJECTS_CHANNEL when it commits, whichever process
 * ran it, so each service process can keep projects in memory and drop them at once on a rotated key or a changed
 * setting (changes.ts). SQLite needs nothing: its data_version pragma tells the same.
 */
export const projectChanges = ({ engine }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    if (engine !== 'postgres') return
    await sql.raw(`create function sessionwatch_projects_changed() returns trigger language plpgsql as $$
      begin perform pg_notify('${PROJECTS_CHANNEL}', ''); return null; end $$`).execute(db)
    await sql.raw(`create trigger projects_changed after insert or update or delete or truncate on projects
      for each statement execute function sessionwatch_projects_changed()`).execute(db)
  },
})
