import { createHash } from 'node:crypto'
import { sql, type Kysely, type Migration } from 'kysely'

/** A project's DSN key, derived from its ingest key as the service derives it (src/projects/keys.ts). */
const dsnKeyOf = (ingestKey: string): string => createHash('sha256').update(`sentry-dsn:${ingestKey}`).digest('hex').slice(0, 32)

/**
 * A Sentry DSN per project (issue 14): a number, since the Sentry SDK takes only a numeric project id, given in
 * creation order; and a public key of word characters derived from the ingest key (dsnKeyOf). Both unique: each
 * is how an envelope finds its project.
 */
export const projectDsn = (): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('projects').addColumn('number', 'integer').execute()
    await db.schema.alterTable('projects').addColumn('dsn_key', 'text').execute()
    const rows = await sql<{ id: string; ingest_key: string }>`select id, ingest_key from projects order by created_at, id`.execute(db)
    for (const [i, row] of rows.rows.entries()) {
      await sql`update projects set number = ${i + 1}, dsn_key = ${dsnKeyOf(row.ingest_key)} where id = ${row.id}`.execute(db)
    }
    await db.schema.createIndex('projects_number_uq').unique().on('projects').column('number').execute()
    await db.schema.createIndex('projects_dsn_key_uq').unique().on('projects').column('dsn_key').execute()
  },
})
