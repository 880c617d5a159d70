import { sql, type Kysely, type Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * The list JSON 0015 kept in each session's row, and the trigger(s) that wrote it: the response schema's serializer
 * writes a session now. The triggers go first, since SQLite drops no column a trigger reads.
 */
export const dropSessionListJson = ({ engine }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    const statements = engine === 'postgres'
      ? ['drop trigger if exists sessions_list_json on sessions', 'drop function if exists sessionwatch_sessions_list_json()']
      : ['drop trigger if exists sessions_list_json_insert', 'drop trigger if exists sessions_list_json_update']
    for (const statement of statements) await sql.raw(statement).execute(db)
    await db.schema.alterTable('sessions').dropColumn('list_json').execute()
    await sql`delete from meta where key = 'sessions.list_json'`.execute(db)
  },
})
