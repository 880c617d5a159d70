import Type, { type Static } from 'typebox'
import { ISSUE_VISITS, ISSUE_VISITS_WINDOW } from './limits.ts'
import { MAX_ISSUE_ID_LENGTH } from '../contract/limits.ts'
import { nextField, Nullable, pageFields, pageQuery, periodQuery, ref } from '../util/schema.ts'
import { EventSchema, ProjectSchema, SessionSchema } from '../contract/index.ts'

const DateTime = (description: string) => Type.String({ format: 'date-time', description })

const Status = (description: string) =>
  Type.Union([Type.Literal('open'), Type.Literal('resolved'), Type.Literal('ignored')], { description })

export const IssueSchema = Type.Object({
  id: Type.String({ description: 'Issue identifier; used in the path of getIssue and in `issue=` of listSessions.' }),
  type: Type.String({ description: 'ERROR, HTTP_ERROR or RAGE_CLICK: the type of the events grouped into it.' }),
  title: Type.String({
    description: 'The error type and normalized message (`TypeError: Order <int> has no items`), the request '
      + '(`POST /api/orders/:id → 500`), or the rage-clicked element (`Rage clicks on "Pay now"`). Visitor-supplied text: escape it when displaying.',
  }),
  culprit: Nullable(Type.String({
    description: 'The top in-app stack frame, the URL template of a failed request, or a rage-clicked element\'s selector on its page template '
      + '(`button#pay on https://shop.example/orders/:id`); null when unknown.',
  })),
  firstSeenAt: DateTime('Its first event (ISO 8601 UTC, milliseconds).'),
  lastSeenAt: DateTime('Its most recent event (ISO 8601 UTC, milliseconds).'),
  events: Type.Integer({ description: 'Stored events grouped into it: exact; events of visits deleted by retention no longer count.' }),
  sessions: Type.Integer({ description: 'Distinct stored visits with at least one of its events: exact, like `events`.' }),
  status: Status('open, resolved or ignored. A resolved issue that occurs again is open again (a regression).'),
  groupingVersion: Type.Integer({ description: 'The version of the grouping rules that created it (docs/api.md, "Issues and grouping").' }),
  assignee: Nullable(Type.Object({
    id: Type.String({ description: 'The person\'s account id.' }),
    email: Type.String(),
  }, { additionalProperties: false, description: 'Who works on it, a person with a role on the project; null: nobody.' })),
}, { $id: 'Issue', title: 'Issue', additionalProperties: false })

export const IssueListQuery = Type.Object({
  status: Type.Optional(Status('Only issues with this status.')),
  ...periodQuery('lastSeenAt'),
  sort: Type.Optional(Type.Union([Type.Literal('lastSeen'), Type.Literal('events'), Type.Literal('sessions')], {
    default: 'lastSeen',
    description: 'lastSeen: most recent lastSeenAt first; events or sessions: the most first, then by lastSeenAt. id breaks ties.',
  })),
  assignee: Type.Optional(Type.String({
    minLength: 1, maxLength: 320,
    description: 'Only issues assigned to this person (their email; in the dashboard also their id, or `me`), or `none` for unassigned ones.',
  })),
  ...pageQuery('issues'),
})
export type IssueListQuery = Static<typeof IssueListQuery>

export const IssueListResponse = Type.Object({
  project: ref(ProjectSchema),
  ...pageFields('issue', 'issues'),
  issues: Type.Array(ref(IssueSchema), { description: 'In the order `sort` names; by default most recent lastSeenAt first, then id descending.' }),
  ...nextField('issues'),
}, { $id: 'IssueList', title: 'IssueList', additionalProperties: false })

export const IssueParams = Type.Object({
  id: Type.String({ description: 'Issue identifier from the issues list.', maxLength: MAX_ISSUE_ID_LENGTH }),
})

export const IssueDetailResponse = Type.Object({
  project: ref(ProjectSchema),
  issue: ref(IssueSchema),
  latestEvent: Nullable(Type.Object({
    sessionId: Type.String({ description: 'The visit it happened in (getSession).' }),
    event: ref(EventSchema),
  }, { additionalProperties: false, description: 'Its most recent stored event; null when retention has deleted them all.' })),
  sessions: Type.Array(ref(SessionSchema), {
    description: `Up to ${ISSUE_VISITS} recent visits that hit it, chosen among its ${ISSUE_VISITS_WINDOW} latest to start: the ones with a screen `
      + 'recording first, then by lastSeenAt descending.',
  }),
}, { $id: 'IssueDetail', title: 'IssueDetail', additionalProperties: false })

export type IssueView = Static<typeof IssueSchema>


export const IssueStatusBody = Type.Object({
  status: Status('The status to set: resolved (reopens when it occurs again), ignored, or open.'),
}, { additionalProperties: false })
export type IssueListView = Static<typeof IssueListResponse>
export type IssueDetailView = Static<typeof IssueDetailResponse>

export const AssigneeBody = Type.Object({
  userId: Nullable(Type.String({ maxLength: 100, description: 'The person to assign, who must have a role on the project; null unassigns.' })),
}, { additionalProperties: false })

/** The longest comment, in characters. */
export const MAX_COMMENT_LENGTH = 10_000

export const CommentBody = Type.Object({
  body: Type.String({ minLength: 1, maxLength: MAX_COMMENT_LENGTH, description: 'Plain text: shown as written, never as HTML.' }),
}, { additionalProperties: false })

export const CommentSchema = Type.Object({
  id: Type.String(),
  author: Nullable(Type.Object({ id: Type.String(), email: Type.String() }, {
    additionalProperties: false, description: 'Who wrote it; null once that person was removed (the comment stays).',
  })),
  body: Type.String({ description: 'Plain text written by a teammate: escape it when displaying.' }),
  createdAt: DateTime('When it was written.'),
  updatedAt: DateTime('When it was last edited (its createdAt when never edited).'),
}, { $id: 'IssueComment', title: 'IssueComment', additionalProperties: false })
export type CommentView = Static<typeof CommentSchema>

export const CommentList = Type.Object({
  comments: Type.Array(ref(CommentSchema), { description: 'Oldest first.' }),
}, { $id: 'IssueCommentList', title: 'IssueCommentList', additionalProperties: false })
export type CommentListView = Static<typeof CommentList>

/** Schemas referenced by $id; registered once with app.addSchema. */
export const issueSchemas = [IssueSchema, IssueListResponse, IssueDetailResponse, CommentSchema, CommentList]
