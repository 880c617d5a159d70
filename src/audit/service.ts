import type { Db } from '../database.ts'
import { DAY_MS, toIso } from '../util/time.ts'
import type { AuditAction, AuditLine, AuditList } from './schema.ts'
import { deleteAuditLinesBefore, insertAuditLine, listAuditLines, type AuditRow } from './store.ts'

/** Who acts: an account (its id and email), or the CLI on the server. */
export interface Actor {
  userId: string | null
  /** The email shown in the trail, or `cli`. */
  name: string
  ip: string | null
}

export const CLI_ACTOR: Actor = { userId: null, name: 'cli', ip: null }

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent a dashboard request, once its sign-in is checked (null elsewhere): the audit trail names them. */
    actor: Actor | null
  }
}

/** The person behind a dashboard request; the dashboard's hook has refused it before a route runs if there is none. */
export function actorOf(request: { actor: Actor | null }): Actor {
  if (request.actor === null) throw new Error('a dashboard route ran without a signed-in person')
  return request.actor
}

export interface AuditOf {
  projectId?: string | null
  target?: string | null
  detail?: Record<string, unknown> | null
}

/** Writes one line, with `db` the transaction of the change it describes when there is one. */
export async function audit(db: Db, actor: Actor, action: AuditAction, what: AuditOf = {}, now = Date.now()): Promise<void> {
  await insertAuditLine(db, {
    at: now, user_id: actor.userId, actor: actor.name, action, project_id: what.projectId ?? null, target: what.target ?? null,
    detail: what.detail ? JSON.stringify(what.detail) : null, ip: actor.ip,
  })
}

const toLine = (row: AuditRow): AuditLine => ({
  id: row.id, at: toIso(row.at), actor: row.actor, userId: row.user_id, action: row.action, projectId: row.project_id,
  target: row.target, detail: row.detail === null ? null : JSON.parse(row.detail) as Record<string, unknown>, ip: row.ip,
})

/** A page of the trail, newest first; `projectIds` null reads every line (owners), else the lines of those projects. */
export async function listAudit(
  db: Db, scope: { projectIds: readonly string[] | null }, query: { userId?: string; since?: number; before?: number; limit: number },
): Promise<AuditList> {
  const rows = await listAuditLines(db, { ...scope, ...query, limit: query.limit + 1 })
  const lines = rows.slice(0, query.limit).map(toLine)
  return { lines, next: rows.length > query.limit ? lines.at(-1)?.id ?? null : null }
}

/** Deletes lines past AUDIT_RETENTION_DAYS; the retention sweep calls it, apart from any project's visits. */
export const sweepAudit = (db: Db, retentionDays: number, now = Date.now()): Promise<number> =>
  deleteAuditLinesBefore(db, now - retentionDays * DAY_MS)
