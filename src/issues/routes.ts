import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { MAX_ISSUE_ID_LENGTH } from '../contract/limits.ts'
import { projectOf } from '../auth/api-key.ts'
import type { ReadAccess } from '../http/read-access.ts'
import { errorResponses, ref } from '../util/schema.ts'
import { CommentList, IssueDetailResponse, IssueListQuery, IssueListResponse, IssueParams } from './schema.ts'
import { listComments } from './team.ts'
import * as service from './service.ts'

/** listIssues and getIssue, for the read API (API key) and the dashboard (sign-in) alike. */
export const issueReadRoutes: FastifyPluginCallbackTypebox<{ access: ReadAccess }> = (app, { access }, done) => {
  app.addHook('onRequest', access.authenticate)

  app.get('/issues', {
    schema: {
      operationId: 'listIssues',
      tags: ['issues'],
      summary: 'List issues: errors grouped across visits',
      description: 'Pages through the project\'s issues, most recent lastSeenAt first (or by `sort`), then id descending. '
        + '`from`/`to` select by lastSeenAt. Every given parameter is validated: an invalid value answers 400 naming it.',
      ...access.schema,
      querystring: IssueListQuery,
      response: { 200: ref(IssueListResponse), ...errorResponses(400, 401, 503) },
    },
  }, (request) => service.listIssues(app.db, projectOf(request), request.query, request.actor?.userId ?? null))

  app.get('/issues/:id', {
    schema: {
      operationId: 'getIssue',
      tags: ['issues'],
      summary: 'Get one issue with its latest event and recent visits',
      description: 'Unknown and other projects\' issues answer 404 alike, and so does an id longer than '
        + `${MAX_ISSUE_ID_LENGTH} characters. The visits that hit it page through listSessions with \`issue=\`.`,
      ...access.schema,
      params: IssueParams,
      response: { 200: ref(IssueDetailResponse), ...errorResponses(401, 404, 503) },
    },
  }, (request) => service.getIssue(app.db, app.sourceMaps, projectOf(request), request.params.id))

  app.get('/issues/:id/comments', {
    schema: {
      operationId: 'listIssueComments',
      tags: ['issues'],
      summary: 'List an issue\'s comments, oldest first',
      description: 'What teammates wrote about the issue in the dashboard, with each author (null once that person was removed) '
        + 'and when it was written and last edited. The body is plain text. An unknown issue answers 404.',
      ...access.schema,
      params: IssueParams,
      response: { 200: ref(CommentList), ...errorResponses(401, 404, 503) },
    },
  }, async (request) => listComments(app.db, projectOf(request).id, request.params.id))
  done()
}
