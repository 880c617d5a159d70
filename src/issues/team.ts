/*
 * Working together on an issue: its assignee (issues.assignee_id) and its comments (issue_comments), both owned here.
 * People are named by the accounts store; a removed person's issues are unassigned and their comments stay without
 * an author (forgetPerson, in the removal's transaction).
 */
import { higher } from '../accounts/roles.ts'
import * as accounts from '../accounts/store.ts'
import type { Db } from '../database.ts'
import { canMatch } from '../db/sql.ts'
import { AppError, notFound } from '../errors.ts'
import { newId } from '../util/ids.ts'
import { toIso } from '../util/time.ts'
import type { CommentView } from './schema.ts'

/** Who an issue is assigned to, by id, as views show it. */
export type People = ReadonlyMap<string, string>

export const personOf = (people: People, id: string | null): { id: string; email: string } | null => {
  const email = id === null ? undefined : people.get(id)
  return id === null || email === undefined ? null : { id, email }
}

/** The emails of the people these rows name. */
export const peopleOf = (db: Db, ids: readonly (string | null)[]): Promise<People> =>
  accounts.emailsOf(db, ids.filter((id): id is string => id !== null))

/** The account id an `assignee=` value names: `none` is null, `me` the caller, an email or an id someone; undefined: nobody with it. */
export async function assigneeFilter(db: Db, value: string, me: string | null): Promise<string | null | undefined> {
  if (value === 'none') return null
  if (value === 'me') {
    if (me === null) throw new AppError(400, 'invalid_parameter', 'assignee=me needs a signed-in person: name an email or none.', 'assignee')
    return me
  }
  const row = value.includes('@') ? await accounts.findUserByEmail(db, value) : await accounts.findUserById(db, value)
  return row?.id
}

async function issueExists(db: Db, projectId: string, issueId: string): Promise<boolean> {
  if (!canMatch(issueId)) return false
  return (await db.selectFrom('issues').select('id').where('project_id', '=', projectId).where('id', '=', issueId).executeTakeFirst()) !== undefined
}

/** Assigns an issue to a person with a role on its project, or to nobody; returns whom it was assigned to before. */
export async function assignIssue(db: Db, projectId: string, issueId: string, userId: string | null): Promise<{ before: string | null }> {
  if (userId !== null) {
    const user = await accounts.findUserById(db, userId)
    const role = user && higher(user.role, (await accounts.projectRoles(db, [user.id])).get(user.id)?.find((p) => p.projectId === projectId)?.role ?? null)
    if (!user || role === null) {
      throw new AppError(400, 'invalid_body', `The person "${userId.slice(0, 100)}" has no role on this project: give them one before assigning them.`, 'userId')
    }
  }
  if (!canMatch(issueId)) throw notFound(`Issue "${issueId}" not found`)
  const before = await db.selectFrom('issues').select('assignee_id').where('project_id', '=', projectId).where('id', '=', issueId).executeTakeFirst()
  if (!before) throw notFound(`Issue "${issueId}" not found`)
  await db.updateTable('issues').set({ assignee_id: userId }).where('project_id', '=', projectId).where('id', '=', issueId).execute()
  return { before: before.assignee_id }
}

const toComment = (people: People) => (r: { id: string; user_id: string | null; body: string; created_at: number; updated_at: number }): CommentView => ({
  id: r.id, author: personOf(people, r.user_id), body: r.body, createdAt: toIso(r.created_at), updatedAt: toIso(r.updated_at),
})

/** An issue's comments, oldest first; 404 for an issue the project does not have. */
export async function listComments(db: Db, projectId: string, issueId: string): Promise<{ comments: CommentView[] }> {
  if (!(await issueExists(db, projectId, issueId))) throw notFound(`Issue "${issueId}" not found`)
  const rows = await db.selectFrom('issue_comments').select(['id', 'user_id', 'body', 'created_at', 'updated_at'])
    .where('project_id', '=', projectId).where('issue_id', '=', issueId).orderBy('created_at').orderBy('id').execute()
  return { comments: rows.map(toComment(await peopleOf(db, rows.map((r) => r.user_id)))) }
}

/** A comment's text: blank ones are refused, and it is kept as written otherwise. */
function commentText(body: string): string {
  if (body.trim() === '') throw new AppError(400, 'invalid_body', 'A comment needs some text.', 'body')
  return body
}

export async function addComment(db: Db, projectId: string, issueId: string, author: { id: string; email: string }, body: string, now = Date.now()): Promise<CommentView> {
  const text = commentText(body)
  if (!(await issueExists(db, projectId, issueId))) throw notFound(`Issue "${issueId}" not found`)
  const row = { id: newId('cm_', 9), project_id: projectId, issue_id: issueId, user_id: author.id, body: text, created_at: now, updated_at: now }
  await db.insertInto('issue_comments').values(row).execute()
  return toComment(new Map([[author.id, author.email]]))(row)
}

/** Changes a comment's text: only its author may (403 for anyone else, 404 for no such comment). */
export async function editComment(
  db: Db, projectId: string, issueId: string, commentId: string, author: { id: string; email: string }, body: string, now = Date.now(),
): Promise<CommentView> {
  const text = commentText(body)
  const row = canMatch(commentId) && canMatch(issueId)
    ? await db.selectFrom('issue_comments').selectAll().where('project_id', '=', projectId).where('issue_id', '=', issueId).where('id', '=', commentId).executeTakeFirst()
    : undefined
  if (!row) throw notFound(`Comment "${commentId.slice(0, 100)}" not found on this issue`)
  if (row.user_id !== author.id) throw new AppError(403, 'forbidden', 'Only its author may edit a comment.')
  await db.updateTable('issue_comments').set({ body: text, updated_at: now }).where('project_id', '=', projectId).where('id', '=', commentId).execute()
  return toComment(new Map([[author.id, author.email]]))({ ...row, body: text, updated_at: now })
}

/** A person being removed: their issues are unassigned and their comments stay, without an author. */
export async function forgetPerson(db: Db, userId: string): Promise<void> {
  await db.updateTable('issues').set({ assignee_id: null }).where('assignee_id', '=', userId).execute()
  await db.updateTable('issue_comments').set({ user_id: null }).where('user_id', '=', userId).execute()
}
