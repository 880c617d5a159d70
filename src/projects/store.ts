import type { Selectable } from 'kysely'
import { externalVersion } from '../db/changes.ts'
import type { Db } from '../database.ts'
import { canMatch } from '../db/sql.ts'
import { isUniqueViolation } from '../db/errors.ts'
import type { ProjectTable } from './table.ts'

export type ProjectRow = Selectable<ProjectTable>

const columns = [
  'id', 'name', 'domain', 'retention_days', 'api_key_hash', 'api_key_prefix', 'ingest_key', 'created_at', 'ip_storage', 'mask_fields', 'number', 'dsn_key',
  'upload_key_hash', 'upload_key_prefix',
  'ingest_rate_limit', 'daily_event_quota', 'recording_budget', 'public_replays',
] as const

/*
 * Every request resolves its key to a project, which cost one query (a round trip on PostgreSQL) before the
 * request's own. Found rows are kept per database while neither this process nor another writes a project:
 * this module's writes forget them when they return, and another process's write moves the database's change
 * signal (db/changes.ts), which starts the cache afresh. While the signal is down, or inside a transaction,
 * every lookup reads the database. Misses are not kept, so random keys cannot grow it.
 */
const MAX_CACHED = 1000

interface Cache {
  /** The change signal's version the rows were read under. */
  version: number
  rows: Map<string, ProjectRow>
}

const caches = new WeakMap<Db, Cache>()

async function cached(db: Db, key: string, read: () => Promise<ProjectRow | undefined>): Promise<ProjectRow | undefined> {
  const version = externalVersion(db)
  if (version === null) return read()
  let cache = caches.get(db)
  if (cache?.version !== version) {
    cache = { version, rows: new Map() }
    caches.set(db, cache)
  }
  const hit = cache.rows.get(key)
  if (hit) return hit
  const row = await read()
  // A write here (which replaces the cache) or elsewhere (which moves the version) while the row was read may
  // have changed it: keep it only when neither happened.
  if (row && caches.get(db) === cache && externalVersion(db) === version) {
    if (cache.rows.size >= MAX_CACHED) cache.rows.clear()
    cache.rows.set(key, Object.freeze(row))
  }
  return row
}

/**
 * After this process wrote a project: the next lookup reads it (a rotated key stops working at once). A write in a
 * transaction calls it on the database once the transaction committed: the cache is the database's.
 */
export function forget(db: Db): void {
  caches.delete(db)
}

/**
 * Inserts a project under the next DSN number (one more than the highest). Two processes creating projects at
 * once may pick the same number: the unique index refuses the second, which takes the next one.
 */
export async function insertProject(db: Db, row: Omit<ProjectRow, 'number'>): Promise<ProjectRow> {
  for (let attempt = 1; ; attempt++) {
    const top = await db.selectFrom('projects').select((eb) => eb.fn.max('number').as('n')).executeTakeFirst()
    const stored = { ...row, number: (top?.n ?? 0) + 1 }
    try {
      await db.insertInto('projects').values(stored).execute()
      forget(db)
      return stored
    } catch (error) {
      if (attempt >= 5 || !isUniqueViolation(error)) throw error
    }
  }
}

/** The project a Sentry DSN names: its number and its key must both match. */
export function findProjectByDsn(db: Db, number: number, dsnKey: string): Promise<ProjectRow | undefined> {
  return cached(db, `dsn ${number} ${dsnKey}`, () =>
    db.selectFrom('projects').select(columns).where('number', '=', number).where('dsn_key', '=', dsnKey).executeTakeFirst())
}

export async function findProjectById(db: Db, id: string): Promise<ProjectRow | undefined> {
  if (!canMatch(id)) return undefined
  return cached(db, `id ${id}`, () => db.selectFrom('projects').select(columns).where('id', '=', id).executeTakeFirst())
}

export function findProjectByApiKeyHash(db: Db, hash: string): Promise<ProjectRow | undefined> {
  return cached(db, `api ${hash}`, () => db.selectFrom('projects').select(columns).where('api_key_hash', '=', hash).executeTakeFirst())
}

export function findProjectByUploadKeyHash(db: Db, hash: string): Promise<ProjectRow | undefined> {
  return cached(db, `upload ${hash}`, () => db.selectFrom('projects').select(columns).where('upload_key_hash', '=', hash).executeTakeFirst())
}

export async function findProjectByIngestKey(db: Db, key: string): Promise<ProjectRow | undefined> {
  if (!canMatch(key)) return undefined
  return cached(db, `ingest ${key}`, () => db.selectFrom('projects').select(columns).where('ingest_key', '=', key).executeTakeFirst())
}

export function listProjects(db: Db): Promise<ProjectRow[]> {
  return db.selectFrom('projects').select(columns).orderBy('created_at').orderBy('id').execute()
}

export async function countProjects(db: Db): Promise<number> {
  const row = await db.selectFrom('projects').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function updateProjectKeys(
  db: Db, id: string, keys: Partial<Pick<ProjectRow, 'api_key_hash' | 'api_key_prefix' | 'ingest_key' | 'dsn_key' | 'upload_key_hash' | 'upload_key_prefix'>>,
): Promise<void> {
  await db.updateTable('projects').set(keys).where('id', '=', id).execute()
  forget(db)
}

export async function updateProject(
  db: Db, id: string, fields: Partial<Pick<ProjectRow, 'name' | 'domain' | 'retention_days' | 'ip_storage' | 'mask_fields' | 'ingest_rate_limit' | 'daily_event_quota' | 'recording_budget' | 'public_replays'>>,
): Promise<ProjectRow | undefined> {
  if (Object.keys(fields).length === 0) return findProjectById(db, id)
  const row = await db.updateTable('projects').set(fields).where('id', '=', id).returning(columns).executeTakeFirst()
  forget(db)
  return row
}

/** Deletes the project's row, in the caller's transaction (forget, after it commits); false when there was none. */
export async function deleteProjectRow(trx: Db, id: string): Promise<boolean> {
  const result = await trx.deleteFrom('projects').where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}
