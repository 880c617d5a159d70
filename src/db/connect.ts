import { inspect } from 'node:util'
import { Kysely, Migrator, type CompiledQuery, type Dialect } from 'kysely'
import type { DatabaseConfig, Engine } from '../config.ts'
import { migrationProvider } from './migrations/index.ts'
import { PROJECTS_CHANNEL, registerChanges, type ExternalChanges } from './changes.ts'
import { postgresChanges } from './postgres/changes.ts'
import { loadPg, postgresDialect } from './postgres/dialect.ts'
import { openSqlite } from './sqlite/dialect.ts'

export interface DatabaseHandle<DB> {
  readonly db: Kysely<DB>
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
export async function openDatabase<DB>(config: DatabaseConfig, options: OpenOptions = {}): Promise<DatabaseHandle<DB>> {
  const { dialect, changes } = await openEngine(config, options)
  const { onQuery } = options
  const db = new Kysely<DB>({ dialect, ...(onQuery && { log: (event) => { if (event.level === 'query') onQuery(event.query) } }) })
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
 * The configured engine's Kysely dialect, whose adapter carries the engine's SQL dialect (dialect.ts) to every query
 * and transaction, and its signal of other processes' writes (changes.ts).
 */
async function openEngine(config: DatabaseConfig, options: OpenOptions): Promise<{ dialect: Dialect; changes: ExternalChanges }> {
  if (config.engine === 'sqlite') return openSqlite(config.location)
  const pg = await loadPg()
  const { location: url, poolSize, statementTimeoutMs, parallelWorkers } = config
  return {
    dialect: postgresDialect(pg, { url, poolSize, statementTimeoutMs, parallelWorkers, onConnectionError: options.onConnectionError }),
    changes: postgresChanges(pg, url, PROJECTS_CHANNEL),
  }
}

/**
 * Brings the schema to the latest version. On PostgreSQL, Kysely's migrator holds an advisory
 * lock while it runs, so processes starting together apply each migration exactly once.
 */
async function migrate<DB>(db: Kysely<DB>, engine: Engine): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider(engine) })
  const { error, results } = await migrator.migrateToLatest()
  const failed = results?.find((r) => r.status === 'Error')
  if (error !== undefined) {
    const detail = error instanceof Error ? error.message : inspect(error)
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${detail}`, { cause: error })
  }
}
