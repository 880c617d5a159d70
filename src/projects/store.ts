import type { Selectable } from 'kysely'
import { canMatch, type Db } from '../db/database.ts'
import type { ProjectTable } from './table.ts'

export type ProjectRow = Selectable<ProjectTable>

const columns = [
  'id', 'name', 'domain', 'retention_days', 'api_key_hash', 'api_key_prefix', 'ingest_key', 'created_at', 'ip_storage', 'mask_fields',
] as const

export async function insertProject(db: Db, row: ProjectRow): Promise<void> {
  await db.insertInto('projects').values(row).execute()
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
  db: Db, id: string, keys: Partial<Pick<ProjectRow, 'api_key_hash' | 'api_key_prefix' | 'ingest_key'>>,
): Promise<void> {
  await db.updateTable('projects').set(keys).where('id', '=', id).execute()
}

export async function updateProject(
  db: Db, id: string, fields: Partial<Pick<ProjectRow, 'name' | 'domain' | 'retention_days' | 'ip_storage' | 'mask_fields'>>,
): Promise<ProjectRow | undefined> {
  if (Object.keys(fields).length === 0) return findProjectById(db, id)
  return db.updateTable('projects').set(fields).where('id', '=', id).returning(columns).executeTakeFirst()
}
