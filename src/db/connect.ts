import { inspect } from 'node:util'
import { Kysely, Migrator, type CompiledQuery } from 'kysely'
import type { DatabaseConfig, Engine } from '../config.ts'
import type { Database } from './database.ts'
import { migrationProvider } from './migrations.ts'
import { PROJECTS_CHANNEL, postgresChanges, registerChanges } from './changes.ts'
import { loadPg, postgresDialect } from './postgres.ts'
import { openSqlite } from './sqlite.ts'

export interface DatabaseHandle {
  readonly db: Kysely<Database>
  readonly engine: Engine
  close(): Promise<void>
}

export interface OpenOptions {
  /** A connection failed outside any query (PostgreSQL restarted, say); the next query reconnects. */
  onConnectionError?: (error: Error) => void
  /** Sees every query as the engine runs it (the SQL snapshot tests record them). */
  onQuery?: (query: CompiledQuery) => void
}

/** Opens the configured engine and brings its schema to the latest version. */
export async function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<DatabaseHandle> {
  const pg = config.engine === 'postgres' ? await loadPg() : null
  const { dialect, changes } = pg
    ? {
      dialect: postgresDialect(pg, {
        url: config.location, poolSize: config.poolSize, statementTimeoutMs: config.statementTimeoutMs, parallelWorkers: config.parallelWorkers,
        onConnectionError: options.onConnectionError,
      }),
      changes: postgresChanges(pg, config.location, PROJECTS_CHANNEL),
    }
    : openSqlite(config.location)
  const { onQuery } = options
  const db = new Kysely<Database>({ dialect, ...(onQuery && { log: (event) => { if (event.level === 'query') onQuery(event.query) } }) })
  const destroy = async (): Promise<void> => {
    await changes.close()
    await db.destroy()
  }
  try {
    await migrate(db, config.engine)
  } catch (error) {
    await destroy()
    throw error
  }
  registerChanges(db, changes)
  let closing: Promise<void> | null = null
  return { db, engine: config.engine, close: () => (closing ??= destroy()) }
}

/**
 * Brings the schema to the latest version. On PostgreSQL, Kysely's migrator holds an advisory
 * lock while it runs, so processes starting together apply each migration exactly once.
 */
async function migrate(db: Kysely<Database>, engine: Engine): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider(engine) })
  const { error, results } = await migrator.migrateToLatest()
  const failed = results?.find((r) => r.status === 'Error')
  if (error !== undefined) {
    const detail = error instanceof Error ? error.message : inspect(error)
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${detail}`, { cause: error })
  }
}
