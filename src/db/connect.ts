import { inspect } from 'node:util'
import { Kysely, Migrator } from 'kysely'
import type { DatabaseConfig, Engine } from '../config.ts'
import type { Database } from './database.ts'
import { migrationProvider } from './migrations.ts'
import { sqliteDialect } from './sqlite.ts'

export interface DatabaseHandle {
  readonly db: Kysely<Database>
  readonly engine: Engine
  close(): Promise<void>
}

/** Opens the configured engine and brings its schema to the latest version. */
export async function openDatabase(config: DatabaseConfig): Promise<DatabaseHandle> {
  if (config.engine === 'postgres') {
    throw new Error('DATABASE_URL selects PostgreSQL, which this build does not support yet; use file:PATH')
  }
  const db = new Kysely<Database>({ dialect: sqliteDialect(config.location) })
  try {
    await migrate(db)
  } catch (error) {
    await db.destroy()
    throw error
  }
  return { db, engine: config.engine, close: () => db.destroy() }
}

async function migrate(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider })
  const { error, results } = await migrator.migrateToLatest()
  const failed = results?.find((r) => r.status === 'Error')
  if (error !== undefined) {
    const detail = error instanceof Error ? error.message : inspect(error)
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${detail}`, { cause: error })
  }
}
