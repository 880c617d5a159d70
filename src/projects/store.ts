import type { Selectable } from 'kysely'
import { canMatch, type Db } from '../db/database.ts'
import { isUniqueViolation } from '../db/errors.ts'
import type { ProjectTable } from './table.ts'

export type ProjectRow = Selectable<ProjectTable>

const columns = [
  'id', 'name', 'domain', 'retention_days', 'api_key_hash', 'api_key_prefix', 'ingest_key', 'created_at', 'ip_storage', 'mask_fields', 'number', 'dsn_key',
] as const

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
      return stored
    } catch (error) {
      if (attempt >= 5 || !isUniqueViolation(error)) throw error
    }
  }
}

/** The project a Sentry DSN names: its number and its key must both match. */
export function findProjectByDsn(db: Db, number: number, dsnKey: string): Promise<ProjectRow | undefined> {
  return db.selectFrom('projects').select(columns).where('number', '=', number).where('dsn_key', '=', dsnKey).executeTakeFirst()
}

export async function findProjectById(db: Db, id: string): Promise<ProjectRow | undefined> {
  if (!canMatch(id)) return undefined
  return db.selectFrom('projects').select(columns).where('id', '=', id).executeTakeFirst()
}

export function findProjectByApiKeyHash(db: Db, hash: string): Promise<ProjectRow | undefined> {
  return db.selectFrom('projects').select(columns).where('api_key_hash', '=', hash).executeTakeFirst()
}

export async function findProjectByIngestKey(db: Db, key: string): Promise<ProjectRow | undefined> {
  if (!canMatch(key)) return undefined
  return db.selectFrom('projects').select(columns).where('ingest_key', '=', key).executeTakeFirst()
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
  db: Db, id: string, keys: Partial<Pick<ProjectRow, 'api_key_hash' | 'api_key_prefix' | 'ingest_key' | 'dsn_key'>>,
): Promise<void> {
  await db.updateTable('projects').set(keys).where('id', '=', id).execute()
}

export async function updateProject(
  db: Db, id: string, fields: Partial<Pick<ProjectRow, 'name' | 'domain' | 'retention_days' | 'ip_storage' | 'mask_fields'>>,
): Promise<ProjectRow | undefined> {
  if (Object.keys(fields).length === 0) return findProjectById(db, id)
  return db.updateTable('projects').set(fields).where('id', '=', id).returning(columns).executeTakeFirst()
}
