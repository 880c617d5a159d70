import type { Selectable } from 'kysely'
import type { Db } from '../database.ts'
import { canMatch } from '../db/sql.ts'
import { deleteProjectRows } from '../db/rows.ts'
import type { ReplayLinkTable } from './table.ts'

/*
 * The only code that reads and writes `replay_links`. A link is found by the digest of its token; its public id lists
 * and revokes it. Links go with their project, with an erased or expired visit, and lose their maker when removed.
 */

export type ReplayLinkRow = Selectable<ReplayLinkTable>

export async function insertLink(db: Db, row: ReplayLinkRow): Promise<void> {
  await db.insertInto('replay_links').values(row).execute()
}

export async function findLink(db: Db, tokenHash: string): Promise<ReplayLinkRow | undefined> {
  if (!canMatch(tokenHash)) return undefined
  return db.selectFrom('replay_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst()
}

export async function findLinkById(db: Db, projectId: string, id: string): Promise<ReplayLinkRow | undefined> {
  if (!canMatch(id)) return undefined
  return db.selectFrom('replay_links').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
}

/** A project's links, newest first; only one person's when `createdBy` is given. */
export function listLinks(db: Db, projectId: string, createdBy: string | null): Promise<ReplayLinkRow[]> {
  let q = db.selectFrom('replay_links').selectAll().where('project_id', '=', projectId)
  if (createdBy !== null) q = q.where('created_by', '=', createdBy)
  return q.orderBy('created_at', 'desc').orderBy('id').execute()
}

export async function revokeLink(db: Db, projectId: string, id: string, now: number): Promise<void> {
  await db.updateTable('replay_links').set({ revoked_at: now }).where('project_id', '=', projectId).where('id', '=', id)
    .where('revoked_at', 'is', null).execute()
}

/** Deleted visits (erasure, retention) take their links with them. */
export async function forgetVisits(db: Db, projectId: string, sessionIds: readonly string[]): Promise<void> {
  if (sessionIds.length === 0) return
  await db.deleteFrom('replay_links').where('project_id', '=', projectId).where('session_id', 'in', sessionIds).execute()
}

/** A removed person's links stay until they expire or an admin revokes them, without a maker. */
export async function forgetPerson(db: Db, userId: string): Promise<void> {
  await db.updateTable('replay_links').set({ created_by: null }).where('created_by', '=', userId).execute()
}

export const forgetProject = (db: Db, projectId: string): Promise<void> => deleteProjectRows(db, ['replay_links'], projectId)
