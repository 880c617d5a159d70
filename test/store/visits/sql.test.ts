/**
 * The planner-sensitive queries of a visit, on both engines: their SQL as the engine runs it,
 * against committed snapshots (test/store/visits/sql/<engine>.sql), and their plans, which must use the
 * index each was written for. A change to one of these queries shows up here as a diff to review;
 * `SW_UPDATE_SQL=1 npm test -- visits/sql` writes the new snapshots.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { CompiledQuery, sql, type Kysely } from 'kysely'
import type { Engine } from '../../../src/config.ts'
import type { Database } from '../../../src/database.ts'
import { createProject } from '../../../src/projects/service.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { countFiltered, listSessions, searchSessions } from '../../../src/search/list.ts'
import { countIssues, issueEventsPerDay, issueVisits, latestIssueEvent, listIssues } from '../../../src/issues/read.ts'
import { countSessions } from '../../../src/search/count.ts'
import { eventsAfter, sessionsAfter } from '../../../src/visits/read.ts'
import { term } from '../../../src/search/indexing.ts'
import { writeBatches } from '../../../src/visits/write.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { eventRecord, storeVisit, writeJob } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'

const SNAPSHOTS = path.join(import.meta.dirname, 'sql')
const DAY = Date.UTC(2026, 10, 20)
const PAGE = { limit: 50, offset: 0 }

/** Each query of a visit whose speed depends on its index, and the index every statement it runs must use. */
interface Case {
  name: string
  run(db: Kysely<Database>, projectId: string, sessionId: string): Promise<unknown>
  /**
   * Per statement, in the order run: the index its plan must name, or a column it must not search an
   * index by (the point of a `+column` spelling; which index then serves is the planner's choice); for a
   * statement made of scalar subqueries, that of each subquery in turn.
   */
  indexes: (Expectation | { parts: Expectation[] })[]
  /** Which of the statements `run` runs are held here (a write runs many); all when absent. */
  only?: RegExp
}

/** `hashed`: PostgreSQL probes a list of ids in a hash of them built once (sql.ts inIds), not per row nor by a join. */
type Expectation = { uses: string | string[]; hashed?: true } | { noIndexCondOn: string }

/**
 * Visits past retention, counted from the lastSeenAt index (PostgreSQL may read a tiny test table by its
 * primary key instead: the two cost the same there).
 */
const EXPIRED = { uses: ['sessions_last_seen_idx', 'sessions_pk'] }

/** A term's visits per day. */
const TERM_DAYS = { uses: ['term_days_pk', 'sqlite_autoindex_term_days_1'] }

const CASES: Case[] = [
  {
    name: 'list: first page',
    run: (db, p) => listSessions(db, p, { cutoff: 0 }, PAGE),
    indexes: [{ uses: 'sessions_last_seen_idx' }],
  },
  {
    name: 'list: one UTC day (date=)',
    run: (db, p) => listSessions(db, p, { from: DAY, to: DAY + DAY_MS, cutoff: 0 }, PAGE),
    indexes: [{ uses: 'sessions_day_last_seen_idx' }],
  },
  {
    name: 'list: page after a cursor (after=): the lastSeenAt index from the cursor\'s key on',
    run: (db, p) => listSessions(db, p, { cutoff: 0 }, { ...PAGE, after: [DAY, 'x'] }),
    indexes: [{ uses: 'sessions_last_seen_idx' }],
  },
  {
    name: 'list: one UTC day, after a cursor',
    run: (db, p) => listSessions(db, p, { from: DAY, to: DAY + DAY_MS, cutoff: 0 }, { ...PAGE, after: [DAY, 'x'] }),
    indexes: [{ uses: 'sessions_day_last_seen_idx' }],
  },
  {
    name: 'list: many visits have the term (errors=true): walk the list order, probe the term',
    run: (db, p) => listSessions(db, p, { cutoff: 0 }, PAGE, { terms: [term.errors] }, { drive: 'order' }),
    indexes: [{ uses: 'sessions_last_seen_idx' }],
  },
  {
    name: 'list: few of the visits walked have the term (sparse): their keys from the lastSeenAt index, then the page\'s rows by id',
    run: (db, p) => listSessions(db, p, { cutoff: 0 }, PAGE, { terms: [term.type('USER_REPORT')] }, { drive: 'order', sparse: true }),
    indexes: [{ uses: 'sessions_last_seen_idx' }],
  },
  {
    name: 'list: few visits have the term (type=USER_REPORT): start from its rows',
    run: (db, p) => listSessions(db, p, { cutoff: 0 }, PAGE, { terms: [term.type('USER_REPORT'), term.errors] },
      { drive: 'filter', driver: { term: term.type('USER_REPORT') } }),
    indexes: [{ uses: ['session_terms_pk', 'PRIMARY KEY'] }],
  },
  {
    name: 'list: a term leads, the text filters\' ids probed on its visits as a set',
    run: (db, p, s) => listSessions(db, p, { cutoff: 0 }, PAGE, { terms: [term.type('USER_REPORT')], ids: [s, 'other'] },
      { drive: 'filter', driver: { term: term.type('USER_REPORT') } }),
    indexes: [{ uses: ['session_terms_pk', 'PRIMARY KEY'], hashed: true }],
  },
  {
    name: 'list: the text filters\' matches lead (their ids, found once): each visit that passes the other filters read by its id',
    run: (db, p, s) => listSessions(db, p, { cutoff: 0 }, PAGE, { ids: [s, 'other'], terms: [term.errors] }, { drive: 'filter', driver: { ids: [s, 'other'] } }),
    indexes: [{ uses: ['sessions_pk', 'sqlite_autoindex_sessions_1'] }],
  },
  {
    name: 'list: many visits match the text filters\' ids: walk the list order, probe the ids as a set',
    run: (db, p, s) => listSessions(db, p, { cutoff: 0 }, PAGE, { ids: [s, 'other'] }, { drive: 'order' }),
    indexes: [{ uses: 'sessions_last_seen_idx', hashed: true }],
  },
  {
    name: 'search by text alone (url=): the matches read once from the trigram index',
    run: (db, p) => searchSessions(db, p, { cutoff: 0 }, PAGE, { url: 'checkout' }),
    // FTS5 on SQLite; on PostgreSQL a test table's few texts are read by the project's key, the benchmark's 1M from the
    // trigram index (the page's ways are the list cases above, which plan.ts chooses from).
    indexes: [{ uses: ['session_texts_page_idx', 'session_texts_pk', 'VIRTUAL TABLE INDEX'] }],
    only: /session_texts|session_fts/,
  },
  {
    name: 'count: partial days at both ends of from/to',
    run: (db, p) => countSessions(db, p, { from: DAY - DAY_MS / 2, to: DAY + DAY_MS + DAY_MS / 2, cutoff: DAY - 5 * DAY_MS }),
    indexes: [{
      parts: [
        { uses: 'session_days' },
        { uses: 'sessions_started_idx' },
        { uses: 'sessions_started_idx' },
        // Past-retention sessions are few and at one end of lastSeenAt; a day of startedAt is ~30k rows.
        { noIndexCondOn: 'started_at' },
      ],
    }],
  },
  {
    name: 'count: one term (errors=true): term_days, then past retention from the lastSeenAt index',
    run: (db, p) => countSessions(db, p, { cutoff: DAY - 5 * DAY_MS }, term.errors),
    indexes: [{ parts: [TERM_DAYS, EXPIRED] }],
  },
  {
    name: 'count: two terms, from their bitmaps',
    run: (db, p) => countFiltered(db, p, { cutoff: DAY - 5 * DAY_MS }, { terms: [term.errors, term.type('USER_REPORT')] }),
    indexes: [
      // Each term's size (the plan's driver); then their term_bits rows ANDed chunk by chunk, less those past retention.
      { parts: [TERM_DAYS, EXPIRED] }, { parts: [TERM_DAYS, EXPIRED] }, { uses: ['term_bits_pk', 'sqlite_autoindex_term_bits_1'] }, EXPIRED,
    ],
  },
  {
    name: 'count: the text filters\' ids and a term: the term probed on each id, the ids that pass listed with the count',
    run: async (db, p, s) => {
      // errors=true as broad as on a real project, so the ids are the fewest visits and lead.
      await db.insertInto('term_days').values({ project_id: p, term: term.errors, day: 1, sessions: 100 }).execute()
      return countFiltered(db, p, { cutoff: DAY - 5 * DAY_MS }, { ids: [s, 'other'], terms: [term.errors] })
    },
    only: /^select/,
    indexes: [
      // The term's size; then each id probed in its rows, counted and listed; then the project's visits past retention,
      // from the lastSeenAt index, to look the listed ones up in (expiredAmong).
      { parts: [TERM_DAYS, EXPIRED] }, { uses: ['session_terms_pk', 'PRIMARY KEY'] }, EXPIRED,
    ],
  },
  {
    name: 'events: page after a cursor (getSession streamed)',
    run: (db, p, s) => eventsAfter(db, p, s, { createdAt: DAY, seq: 3 }, 1000),
    indexes: [{ uses: 'events_order_idx' }],
  },
  {
    name: 'export: sessions after a cursor',
    run: (db, p) => sessionsAfter(db, p, { cutoff: 0 }, { startedAt: DAY, id: 'x' }, 500),
    indexes: [{ uses: 'sessions_started_idx' }],
  },
  {
    name: 'issues: first page',
    run: (db, p) => listIssues(db, p, {}, PAGE),
    // Both lead with project_id; on a few test rows PostgreSQL may take either (the benchmark measures the real choice).
    indexes: [{ uses: ['issues_seen_idx', 'issues_status_seen_idx'] }],
  },
  {
    name: 'issues: page after a cursor',
    run: (db, p) => listIssues(db, p, {}, { ...PAGE, after: [DAY, 'x'] }),
    indexes: [{ uses: ['issues_seen_idx', 'issues_status_seen_idx'] }],
  },
  {
    name: 'issues: one status, after a cursor',
    run: (db, p) => listIssues(db, p, { status: 'open' }, { ...PAGE, after: [DAY, 'x'] }),
    indexes: [{ uses: 'issues_status_seen_idx' }],
  },
  {
    name: 'issues: one status',
    run: (db, p) => listIssues(db, p, { status: 'open' }, PAGE),
    indexes: [{ uses: 'issues_status_seen_idx' }],
  },
  {
    name: 'issues: total of a period',
    run: (db, p) => countIssues(db, p, { from: DAY, to: DAY + DAY_MS }),
    // On a table of a few rows PostgreSQL costs both last_seen_at indexes alike and may take either.
    indexes: [{ uses: ['issues_seen_idx', 'issues_status_seen_idx'] }],
  },
  {
    name: 'issue: latest event',
    run: (db, p) => latestIssueEvent(db, p, 'issue', 0),
    // By the issue's key, then by the key of the event it points at: no index on events by issue, which ingest would pay for.
    // (PostgreSQL may read tables of a few rows through any index that holds the key's columns.)
    indexes: [{ uses: ['issues_pk', 'sqlite_autoindex_issues_1', 'issues_status_seen_idx'] }, { uses: ['events_pk', 'sqlite_autoindex_events_1', 'events_order_idx'] }],
  },
  {
    name: 'issue: events per day',
    run: (db, p) => issueEventsPerDay(db, p, 'issue', DAY),
    indexes: [{ uses: ['issue_days_pk', 'sqlite_autoindex_issue_days_1'] }],
  },
  {
    name: 'list: visits of an issue (issue=)',
    run: (db, p) => listSessions(db, p, { cutoff: 0 }, PAGE, { issue: 'issue' }),
    // From the issue's links, not along the project's lastSeenAt index.
    indexes: [{ noIndexCondOn: 'last_seen_at' }],
  },
  {
    name: 'issue: its recent visits (getIssue), from its links',
    run: (db, p) => issueVisits(db, p, 'issue', 0, 10, 1000),
    // From the issue's links, not along the project's lastSeenAt index probing each visit for the issue.
    indexes: [{ noIndexCondOn: 'last_seen_at' }],
  },
  {
    name: 'ingest: a group\'s live visits reserved in one statement, each found by its key',
    // Last: it adds an event to the visit the cases above read.
    run: (db, p) => writeBatches(db, [
      writeJob(p, 'plans-session', [event(3, 'CLICK')], DAY + DAY_MS), writeJob(p, 'plans-other', [event(4, 'CLICK')], DAY + DAY_MS),
    ]),
    only: /^with v /,
    // By the key. On a test table of a few rows PostgreSQL may read the project's rows through its started_at index
    // instead (the key is then a filter); on the benchmark's sessions it takes the key (docs/performance.md).
    indexes: [{ uses: ['sessions_session_key_uq', 'sqlite_autoindex_sessions_2', 'sessions_started_idx'] }],
  },
]

const describeExpectation = (e: Case['indexes'][number]): string =>
  ('parts' in e ? `(${e.parts.map(describeExpectation).join(', ')})` : 'uses' in e ? `${[e.uses].flat().join(' or ')}${e.hashed ? ', the ids hashed' : ''}` : `no index on ${e.noIndexCondOn}`)

/**
 * A plan's scalar subqueries, each with the lines under it (SQLite: SCALAR SUBQUERY n; PostgreSQL: InitPlan n),
 * in the statement's order; what comes before the first is the outer query's, which reads no table here.
 */
const subqueryPlans = (plan: string): string[] => plan.split(/^(?=\s*(?:SCALAR SUBQUERY|InitPlan)\b)/m).slice(1)

function assertPlan(expected: Expectation, text: string, where: string, engine: Engine): void {
  if ('uses' in expected) {
    assert.ok([expected.uses].flat().some((index) => text.includes(index)), `should use ${describeExpectation(expected)}: ${where}`)
    if (expected.hashed && engine === 'postgres') assert.match(text, /hashed SubPlan/, `should probe the ids in a hash: ${where}`)
  } else {
    assert.ok(!indexSearches(text).some((l) => l.includes(expected.noIndexCondOn)), `must not search by ${expected.noIndexCondOn}: ${where}`)
  }
}

/** The lines of a plan that search an index, with their conditions (SQLite: SEARCH … USING INDEX; PostgreSQL: Index Cond). */
const indexSearches = (plan: string): string[] => plan.split('\n').filter((l) => /USING (?:COVERING )?INDEX|Index Cond/.test(l))

const event = (i: number, type: string) => eventRecord(`e${i}`, DAY + i * 60_000, type)

/** The statement's plan as text: EXPLAIN QUERY PLAN on SQLite; on PostgreSQL EXPLAIN with sequential scans off. */
async function plan(db: Kysely<Database>, engine: Engine, query: CompiledQuery): Promise<string> {
  if (engine === 'sqlite') {
    const rows = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]))
    return rows.rows.map((r) => r.detail).join('\n')
  }
  // A test table of a few rows is cheapest to scan whole; with scans off the plan shows which index the
  // query can use at all, which is what its spelling decides (the benchmark measures the real choice).
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx)
    const rows = await trx.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]))
    return rows.rows.map((r) => Object.values(r).join(' ')).join('\n')
  })
}

for (const engine of testEngines()) {
  describe(`visit queries: SQL snapshots and plans [${engine}]`, () => {
    const recorded: CompiledQuery[] = []
    let recording = false
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    let projectId: string
    let sessionId: string
    const runs = new Map<string, CompiledQuery[]>()

    before(async () => {
      handle = await openTestDatabase(engine, { onQuery: (query) => { if (recording) recorded.push(query) } })
      projectId = (await createProject(handle.db, { name: 'Plans', domain: 'plans.example' })).id
      const stored = await storeVisit(handle.db, projectId, 'plans-session', [event(0, 'NAVIGATION'), event(1, 'ERROR'), event(2, 'CLICK')], DAY + DAY_MS)
      sessionId = stored.sessionId
      // An issue pointing at the visit's ERROR, for the issue reads.
      await handle.db.insertInto('issues').values({
        project_id: projectId, id: 'issue', grouping_version: 1, type: 'ERROR', title: 'Error: plan', culprit: null, first_seen_at: DAY,
        last_seen_at: DAY, events: 1, sessions: 1, status: 'open', resolved_at: null, created_at: DAY, last_session_id: sessionId, last_event_id: 'e1',
      }).execute()
      for (const c of CASES) {
        recording = true
        await c.run(handle.db, projectId, sessionId)
        recording = false
        runs.set(c.name, recorded.splice(0).filter((q) => c.only?.test(q.sql) ?? true))
      }
    })
    after(() => handle.dispose())

    it('runs each query as its committed snapshot spells it', () => {
      const text = CASES.map((c) => [`-- ${c.name}`, ...(runs.get(c.name) ?? []).map((q) => `${q.sql};`)].join('\n')).join('\n\n') + '\n'
      const file = path.join(SNAPSHOTS, `${engine}.sql`)
      if (process.env.SW_UPDATE_SQL === '1') {
        fs.mkdirSync(SNAPSHOTS, { recursive: true })
        fs.writeFileSync(file, text)
      }
      assert.equal(text, fs.readFileSync(file, 'utf8'),
        `the SQL of a planner-sensitive query changed: review the diff, then SW_UPDATE_SQL=1 npm test -- visits/sql`)
    })

    for (const c of CASES) {
      it(`${c.name}: ${c.indexes.map(describeExpectation).join(', ')}`, async () => {
        const statements = runs.get(c.name) ?? []
        assert.equal(statements.length, c.indexes.length, `${c.name} runs ${statements.length} statements`)
        for (const [i, query] of statements.entries()) {
          const expected = c.indexes[i]
          assert.ok(expected)
          const text = await plan(handle.db, engine, query)
          const where = `statement ${i + 1} of "${c.name}":\n${query.sql}\n${text}`
          if ('parts' in expected) {
            const parts = subqueryPlans(text)
            assert.equal(parts.length, expected.parts.length, `subqueries of ${where}`)
            for (const [j, part] of expected.parts.entries()) assertPlan(part, parts[j] ?? '', `subquery ${j + 1} of ${where}`, engine)
          } else {
            assertPlan(expected, text, where, engine)
          }
        }
      })
    }
  })
}
