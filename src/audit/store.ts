import type { Insertable, Selectable } from 'kysely'
import type { Db } from '../database.ts'
import type { AuditTable } from './table.ts'

/*
 * The `audit_log` table: only this module reads or writes it. Lines are written with the change they describe, in
 * its transaction when it has one, and are deleted only by age (AUDIT_RETENTION_DAYS), never with a project's visits.
 */

export type AuditRow = Selectable<AuditTable>

export async function insertAuditLine(db: Db, line: Omit<Insertable<AuditTable>, 'id'>): Promise<void> {
  await db.insertInto('audit_log').values(line).execute()
}

export interface AuditFilter {
  /** Only lines about these projects (null: every line, projects and none). */
  projectIds: readonly string[] | null
  userId?: string
  since?: number
  /** Lines older than this id (paging, newest first). */
  before?: number
  limit: number
}

/** Newest first. */
export async function listAuditLines(db: Db, filter: AuditFilter): Promise<AuditRow[]> {
  if (filter.projectIds?.length === 0) return []
  let query = db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(filter.limit)
  if (filter.projectIds !== null) query = query.where('project_id', 'in', filter.projectIds)
  if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId)
  if (filter.since !== undefined) query = query.where('at', '>=', filter.since)
  if (filter.before !== undefined) query = query.where('id', '<', filter.before)
  return query.execute()
}

/** Deletes lines older than `before`; returns how many. */
export async function deleteAuditLinesBefore(db: Db, before: number): Promise<number> {
  return Number((await db.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst()).numDeletedRows)
}
