import { randomBytes } from 'node:crypto'
import { emailsOf } from '../accounts/store.ts'
import type { Db } from '../database.ts'
import { AppError, notFound } from '../errors.ts'
import { getProject, type ProjectContext } from '../projects/service.ts'
import { getRecording, type RecordingView } from '../recording/service.ts'
import { newId, sha256Hex } from '../util/ids.ts'
import { DAY_MS, toIso } from '../util/time.ts'
import { DEFAULT_LINK_DAYS, type LinkView } from './schema.ts'
import * as store from './store.ts'

/** What one public link opens: the visit's replay and nothing else of its project. */
export interface OpenLink {
  project: ProjectContext
  sessionId: string
}

const GONE = 'This replay link has expired, was revoked, or its project no longer shares replays.'

/** Makes a link to one visit's replay; the project must allow public replays and have the visit. Returns its token once. */
export async function createLink(
  db: Db, project: ProjectContext, sessionId: string, createdBy: string | null, days = DEFAULT_LINK_DAYS, now = Date.now(),
): Promise<{ id: string; token: string; expiresAt: string }> {
  if (!project.publicReplays) {
    throw new AppError(409, 'public_replays_off', 'Public replay links are off for this project: an admin can turn them on in its Settings.')
  }
  await getRecording(db, project, sessionId, now)
  const token = randomBytes(32).toString('base64url')
  const row = { token_hash: sha256Hex(token), id: newId('rl_', 9), project_id: project.id, session_id: sessionId, created_by: createdBy, created_at: now, expires_at: now + days * DAY_MS, revoked_at: null }
  await store.insertLink(db, row)
  return { id: row.id, token, expiresAt: toIso(row.expires_at) }
}

/** The visit a token opens, or 404 alike for a wrong, expired or revoked token and a project that stopped sharing. */
export async function openLink(db: Db, token: string, now = Date.now()): Promise<OpenLink> {
  const row = await store.findLink(db, sha256Hex(token))
  if (!row || row.revoked_at !== null || row.expires_at <= now) throw notFound(GONE)
  const project = await getProject(db, row.project_id).catch(() => null)
  if (!project?.publicReplays) throw notFound(GONE)
  return { project, sessionId: row.session_id }
}

/** The recording a link shows, without the project's name or ids. */
export async function linkRecording(db: Db, link: OpenLink): Promise<Pick<RecordingView, 'recording' | 'chunks'>> {
  const { recording, chunks } = await getRecording(db, link.project, link.sessionId)
  return { recording, chunks }
}

/** A project's links: all of them for an admin, a member's own otherwise. */
export async function listLinks(db: Db, project: ProjectContext, viewer: { userId: string; admin: boolean }, now = Date.now()): Promise<{ links: LinkView[] }> {
  const rows = await store.listLinks(db, project.id, viewer.admin ? null : viewer.userId)
  const people = await emailsOf(db, rows.flatMap((r) => (r.created_by === null ? [] : [r.created_by])))
  return {
    links: rows.map((r) => {
      const email = r.created_by === null ? undefined : people.get(r.created_by)
      return {
        id: r.id, sessionId: r.session_id, createdBy: r.created_by === null || email === undefined ? null : { id: r.created_by, email },
        createdAt: toIso(r.created_at), expiresAt: toIso(r.expires_at), revokedAt: r.revoked_at === null ? null : toIso(r.revoked_at),
        active: r.revoked_at === null && r.expires_at > now && project.publicReplays,
      }
    }),
  }
}

/** Revokes a link: its maker or an admin of the project may; returns the visit it showed. */
export async function revokeLink(db: Db, projectId: string, id: string, by: { userId: string; admin: boolean }, now = Date.now()): Promise<string> {
  const row = await store.findLinkById(db, projectId, id)
  if (!row) throw notFound(`No public replay link "${id.slice(0, 100)}" in this project`)
  if (!by.admin && row.created_by !== by.userId) throw new AppError(403, 'forbidden', 'Only its maker or an admin of the project may revoke a public replay link.')
  await store.revokeLink(db, projectId, id, now)
  return row.session_id
}
