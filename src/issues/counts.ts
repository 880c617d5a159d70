/**
 * The counts a group commit adds to its issues (IssueDeltas.apply in store.ts): a step of the visit's write, in a file
 * of its own for length.
 */
import { sql } from 'kysely'
import type { Db } from '../database.ts'
import { addRows, upsertsOfArrays, type Upsert } from '../db/counters.ts'
import { runReused } from '../db/reuse.ts'
import { rowsOfArrays } from '../db/sql.ts'
import type { IssueTable } from './tables.ts'

/** A group's events in one issue: how many, the first and last times, and the latest of them. */
export interface IssueCounts {
  projectId: string
  events: number
  first: number
  last: number
  /** The latest of these events (the last stored of those at `last`). */
  latest: { sessionId: string; eventId: string }
}

/** What a group adds to one issue: its key in IssueDeltas, its id, the counts, and the visits new to it. */
export interface IssueAdd { key: string; issueId: string; c: IssueCounts; added: number }

/** An issue as a group's write leaves it: what its alerts and totals need. */
const COUNTED = ['project_id', 'id', 'type', 'title', 'culprit', 'first_seen_at', 'last_seen_at', 'events', 'sessions', 'assignee_id', 'release', 'environment'] as const
export type Counted = Pick<IssueTable, typeof COUNTED[number]>
const keyOf = (issue: Counted): string => `${issue.project_id}\u0000${issue.id}`

/** issue_days as addRows writes them: events per issue and UTC day. */
export const ISSUE_DAYS = {
  table: 'issue_days', keys: [['project_id', 'text'], ['issue_id', 'text'], ['day', 'integer']], counters: [['events', 'integer']],
} as const satisfies Omit<Upsert, 'rows'>

/**
 * Adds the group's counts into their issues (in the given order, which is key order) and then `days` into issue_days,
 * one statement per issue: SQLite runs in process, where a statement costs no round trip. Returns the issues by key.
 */
export async function countEach(trx: Db, counts: readonly IssueAdd[], days: Upsert): Promise<Map<string, Counted>> {
  const counted = new Map<string, Counted>()
  for (const { issueId, c, added } of counts) {
    // Built once (runReused), the values in the SQL's order.
    const params = [c.events, added, c.first, c.first, c.last, c.last, c.last, c.latest.sessionId, c.last, c.latest.eventId, c.projectId, issueId]
    const [issue] = (await runReused(trx, 'update issue counts', params, () => trx.updateTable('issues').set((eb) => ({
      events: eb('events', '+', c.events),
      sessions: eb('sessions', '+', added),
      // eb.val: Kysely would inline a bare then() value into the SQL.
      first_seen_at: eb.case().when('first_seen_at', '>', c.first).then(eb.val(c.first)).else(eb.ref('first_seen_at')).end(),
      last_seen_at: eb.case().when('last_seen_at', '<', c.last).then(eb.val(c.last)).else(eb.ref('last_seen_at')).end(),
      // SET reads the row as it was: the group's latest event wins unless the issue has a later one.
      last_session_id: eb.case().when('last_seen_at', '<=', c.last).then(eb.val<string | null>(c.latest.sessionId))
        .else(eb.ref('last_session_id')).end(),
      last_event_id: eb.case().when('last_seen_at', '<=', c.last).then(eb.val<string | null>(c.latest.eventId))
        .else(eb.ref('last_event_id')).end(),
    })).where('project_id', '=', c.projectId).where('id', '=', issueId).returning(COUNTED))).rows
    if (issue) counted.set(keyOf(issue), issue)
  }
  await addRows(trx, [days])
  return counted
}

/**
 * The same on PostgreSQL in one statement, a column's values per parameter: one round trip for every issue the group
 * counts into, where a statement per issue cost one each while the group held rows other writers wait for. The rows
 * are locked first, by a SELECT … FOR UPDATE in key order (byte order, as JavaScript's sort; the UPDATE's join may take
 * them in any order), so concurrent groups cannot deadlock on them; issue_days follow, as a WITH query that PostgreSQL
 * runs after the statement's main query.
 */
export async function countAsArrays(trx: Db, counts: readonly IssueAdd[], days: Upsert): Promise<Map<string, Counted>> {
  if (counts.length === 0) return new Map()
  const columns = [
    [counts.map((a) => a.c.projectId), 'text'], [counts.map((a) => a.issueId), 'text'], [counts.map((a) => a.c.events), 'integer'],
    [counts.map((a) => a.added), 'integer'], [counts.map((a) => a.c.first), 'bigint'], [counts.map((a) => a.c.last), 'bigint'],
    [counts.map((a) => a.c.latest.sessionId), 'text'], [counts.map((a) => a.c.latest.eventId), 'text'],
  ] as const
  const { arrays, statements: [addDays] } = upsertsOfArrays([days])
  const statement = sql<Counted>`with counts (project_id, id, events, sessions, first_seen_at, last_seen_at, session_id, event_id) as
    ${rowsOfArrays(columns)},
    locked as (select i.project_id, i.id from issues i join counts on i.project_id = counts.project_id and i.id = counts.id
      order by i.project_id collate "C", i.id collate "C" for update of i),
    counted as (update issues set events = issues.events + counts.events, sessions = issues.sessions + counts.sessions,
        first_seen_at = least(issues.first_seen_at, counts.first_seen_at), last_seen_at = greatest(issues.last_seen_at, counts.last_seen_at),
        last_session_id = case when issues.last_seen_at <= counts.last_seen_at then counts.session_id else issues.last_session_id end,
        last_event_id = case when issues.last_seen_at <= counts.last_seen_at then counts.event_id else issues.last_event_id end
      from counts join locked on locked.project_id = counts.project_id and locked.id = counts.id
      where issues.project_id = counts.project_id and issues.id = counts.id
      returning ${sql.join(COUNTED.map((c) => sql.ref(`issues.${c}`)))}),
    days as (${addDays ?? sql`select 1`})
    select * from counted`
  const params = [...columns.map(([values]) => values), ...arrays]
  const { rows } = await runReused(trx, 'count issues as arrays', params, () => ({ compile: () => statement.compile(trx) }))
  return new Map(rows.map((issue) => [keyOf(issue), issue]))
}
