import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import * as accounts from '../accounts/store.ts'
import { actorOf, audit, type Actor } from '../audit/service.ts'
import { addComment, assignIssue, editComment } from '../issues/index.ts'
import { AssigneeBody, CommentBody } from '../issues/schema.ts'
import { ProjectParams } from '../projects/schema.ts'
import { IssueInProjectParams } from './schema.ts'

const hide = { hide: true }
const CommentParams = Type.Object({ ...IssueInProjectParams.properties, commentId: Type.String({ maxLength: 100 }) })

/** The author of a change: the signed-in person, whom the dashboard's hook has checked before any route runs. */
const authorOf = (request: { actor: Actor | null }) => {
  const actor = actorOf(request)
  if (actor.userId === null) throw new Error('a dashboard route ran without an account')
  return { id: actor.userId, email: actor.name }
}

/** Working together on an issue: who may be assigned, assigning, and comments (read with the issue routes). */
export const issueTeamRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  // The people an issue may be assigned to (those with a role on the project), for the picker of those who assign.
  app.get('/projects/:projectId/people', { schema: { ...hide, params: ProjectParams } }, async (request) =>
    ({ people: (await accounts.peopleOn(app.db, request.params.projectId)).map((p) => ({ id: p.id, email: p.email })) }))

  app.put('/projects/:projectId/issues/:id/assignee', { schema: { ...hide, params: IssueInProjectParams, body: AssigneeBody } }, async (request) => {
    const { projectId, id } = request.params
    const userId = request.body.userId
    await app.db.transaction().execute(async (trx) => {
      const { before } = await assignIssue(trx, projectId, id, userId)
      await audit(trx, actorOf(request), 'issue_assigned', { projectId, target: id, detail: { from: before, to: userId } })
    })
    const email = userId === null ? undefined : (await accounts.emailsOf(app.db, [userId])).get(userId)
    return { assignee: userId === null || email === undefined ? null : { id: userId, email } }
  })

  app.post('/projects/:projectId/issues/:id/comments', { schema: { ...hide, params: IssueInProjectParams, body: CommentBody } }, async (request, reply) => {
    const { projectId, id } = request.params
    const comment = await app.db.transaction().execute(async (trx) => {
      const made = await addComment(trx, projectId, id, authorOf(request), request.body.body)
      await audit(trx, actorOf(request), 'issue_commented', { projectId, target: id, detail: { comment: made.id } })
      return made
    })
    return reply.code(201).send(comment)
  })

  app.patch('/projects/:projectId/issues/:id/comments/:commentId', { schema: { ...hide, params: CommentParams, body: CommentBody } }, async (request) => {
    const { projectId, id, commentId } = request.params
    return app.db.transaction().execute(async (trx) => {
      const edited = await editComment(trx, projectId, id, commentId, authorOf(request), request.body.body)
      await audit(trx, actorOf(request), 'issue_commented', { projectId, target: id, detail: { comment: commentId, edited: true } })
      return edited
    })
  })
  done()
}
