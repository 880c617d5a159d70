import { WEBHOOK_CHAT_MAX_CHARS, WEBHOOK_CHAT_TITLE_CHARS } from './limits.ts'
import { truncate } from '../../common/text.ts'
import { toIso } from '../util/time.ts'
import type { AlertKind } from './table.ts'

/** An issue that is new or came back, as the ingest write path hands it to the alerts. */
export interface IssueAlert {
  projectId: string
  kind: AlertKind
  /** When it happened (epoch ms): the issue's first event, or the event that reopened it. */
  at: number
  issue: { id: string; type: string; title: string; culprit: string | null; firstSeenAt: number; lastSeenAt: number; events: number; sessions: number }
  /** Who works on the issue (a regression keeps its assignee); absent or null: nobody. */
  assignee?: { id: string; email: string } | null
}

/**
 * What a delivery says about its alert, taken when the alert is queued and stored with it: every attempt sends
 * the same facts, whatever happens to the issue meanwhile.
 */
export interface AlertFacts {
  kind: AlertKind
  project: { id: string; name: string }
  issue: {
    id: string; title: string; type: string; culprit: string | null
    firstSeenAt: string; lastSeenAt: string; events: number; sessions: number
    /** Who works on it; null: nobody (alerts queued before assignees carry none). */
    assignee?: { id: string; email: string } | null
  }
}

export function alertFacts(alert: IssueAlert, projectName: string): AlertFacts {
  const { issue } = alert
  return {
    kind: alert.kind,
    project: { id: alert.projectId, name: projectName },
    issue: {
      id: issue.id, title: issue.title, type: issue.type, culprit: issue.culprit,
      firstSeenAt: toIso(issue.firstSeenAt), lastSeenAt: toIso(issue.lastSeenAt), events: issue.events, sessions: issue.sessions,
      assignee: alert.assignee ?? null,
    },
  }
}

/** Where the dashboard shows an issue, below the service's address. */
export const issuePath = (projectId: string, issueId: string): string =>
  `/app#/p/${encodeURIComponent(projectId)}/issues/${encodeURIComponent(issueId)}`

/**
 * The JSON body a webhook receives: the facts, a link to the issue, and the same message twice — `text` for
 * Slack and Mattermost, `content` (at most WEBHOOK_CHAT_MAX_CHARS) for Discord — so their incoming-webhook URLs
 * work as they are; other receivers read the facts. Rendered at each attempt from the stored facts and
 * PUBLIC_URL: the ingest path that queues an alert has no configuration, and the same facts give the same body.
 */
export function renderBody(facts: AlertFacts, publicUrl: string | null): string {
  const path = issuePath(facts.project.id, facts.issue.id)
  const link = publicUrl === null ? null : `${publicUrl}${path}`
  return JSON.stringify({
    ...facts,
    issue: { ...facts.issue, assignee: facts.issue.assignee ?? null },
    url: link ?? path,
    text: chatMessage(facts, link, slack),
    content: truncate(chatMessage(facts, link, discord), WEBHOOK_CHAT_MAX_CHARS),
    // Discord pings nobody for this message, whatever a visitor's error message says (@everyone, say).
    allowed_mentions: { parse: [] },
  })
}

/** How one chat service's markup is neutralized: visitor text (titles, culprits) must stay text there too. */
interface Markup {
  /** Plain text outside code. */
  plain(text: string): string
  /** Text inside a code span, which shows it as written. */
  code(text: string): string
}

/** Slack (and Mattermost's Slack-compatible webhooks) parse `<…>` as links and mentions everywhere, code included. */
const slackEscape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const slack: Markup = { plain: slackEscape, code: slackEscape }
/** Discord renders markdown outside code spans; inside one it shows the text and resolves no mention. */
const discord: Markup = { plain: (text) => text.replace(/[\\*_~|`<>#[\]()@]/g, '\\$&'), code: (text) => text }

/** A code span of visitor text on one line: a backtick inside would end the span early, so it becomes a quote. */
const codeSpan = (markup: Markup, text: string): string =>
  `\`${markup.code(truncate(text.replace(/\s+/g, ' ').trim(), WEBHOOK_CHAT_TITLE_CHARS).replace(/`/g, "'"))}\``

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`

function chatMessage(facts: AlertFacts, link: string | null, markup: Markup): string {
  const { issue } = facts
  const what = facts.kind === 'new' ? 'New issue' : 'Regression'
  const where = issue.culprit === null ? '' : ` in ${codeSpan(markup, issue.culprit)}`
  const back = facts.kind === 'regression' ? ' is back after it was resolved' : ''
  const line = `${what} in ${markup.plain(facts.project.name)}: ${codeSpan(markup, issue.title)}${where}${back} `
    + `(${issue.type}, ${count(issue.events, 'event')} in ${count(issue.sessions, 'session')})`
    + (issue.assignee ? `, assigned to ${markup.plain(issue.assignee.email)}` : '')
  // Chat services link a bare URL by themselves; a relative path would link nowhere.
  return link === null ? line : `${line}\n${link}`
}
