import type { Selectable } from 'kysely'
import type { Db } from '../database.ts'
import { canMatch } from '../db/sql.ts'
import type { AdminSessionTable } from './table.ts'

/*
 * The `admin_sessions` table: only this module reads or writes it. In the database rather than in memory, so
 * signing out (or a new password) ends a sign-in in every process of the service at once.
 */

export type AdminSessionRow = Selectable<AdminSessionTable>

/** Stores a new sign-in, and sweeps the expired ones while at it (sign-ins are rare, and the index finds them). */
export async function insertAdminSession(db: Db, row: AdminSessionRow): Promise<void> {
  await db.deleteFrom('admin_sessions').where('expires_at', '<=', row.created_at).execute()
  await db.insertInto('admin_sessions').values(row).execute()
}

export async function findAdminSession(db: Db, tokenHash: string): Promise<AdminSessionRow | undefined> {
  if (!canMatch(tokenHash)) return undefined
  return db.selectFrom('admin_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst()
}

export async function deleteAdminSession(db: Db, tokenHash: string): Promise<void> {
  if (!canMatch(tokenHash)) return
  await db.deleteFrom('admin_sessions').where('token_hash', '=', tokenHash).execute()
}

/** Every sign-in ends: the password was reset. */
export async function deleteAllAdminSessions(db: Db): Promise<void> {
  await db.deleteFrom('admin_sessions').execute()
}
