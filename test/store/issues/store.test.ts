import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Kysely } from 'kysely'
import type { Database } from '../../../src/database.ts'
import type { EventRecord } from '../../../src/contract/event-types.ts'
import { createProject } from '../../../src/projects/service.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { deleteExpired } from '../../../src/visits/delete.ts'
import { setIssueStatus, type EventGroup } from '../../../src/issues/store.ts'
import { countFiltered, searchSessions } from '../../../src/search/list.ts'
import { countIssues, findIssue, issueEventsPerDay, issueVisits, latestIssueEvent, listIssues } from '../../../src/issues/read.ts'
import { term } from '../../../src/search/indexing.ts'
import { writeBatches, type AppendResult } from '../../../src/visits/write.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'
import { eventRecord, writeJob } from '../../helpers/factories.ts'

const group = (fingerprint: string): EventGroup => ({ version: 1, fingerprint, title: `Error ${fingerprint}`, culprit: null })

for (const engine of testEngines()) {
  describe(`issues store [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    let db: Kysely<Database>
    let projectId: string
    const now = Date.UTC(2026, 10, 21, 15, 0, 0)

    /** Stores `events` in `key`'s visit, grouping each ERROR by the fingerprint in its message. */
    async function store(key: string, events: EventRecord[], at = now): Promise<AppendResult> {
      const groups = events.map((e) => (e.type === 'ERROR' ? group(e.message ?? '') : null))
      const [outcome] = await writeBatches(db, [writeJob(projectId, key, events, at, 0, groups)])
      assert.ok(outcome && 'result' in outcome, 'stored')
      return outcome.result
    }
    const error = (id: string, at: number, fp: string) => eventRecord(id, at, 'ERROR', { message: fp })
    const issueOf = async (fp: string) => {
      const all = await listIssues(db, projectId, {}, { limit: 200, offset: 0 })
      return all.find((i) => i.title === `Error ${fp}`)
    }

    /** Every statement the handle ran, in order. */
    const statements: string[] = []

    before(async () => {
      handle = await openTestDatabase(engine, { onQuery: (q) => { statements.push(q.sql) } })
      db = handle.db
      projectId = (await createProject(db, { name: 'Issues', domain: 'issues.example' })).id
    })
    after(() => handle.dispose())

    it('groups events by fingerprint across visits, with exact event and visit counts', async () => {
      const first = await store('v1', [error('a', now - 5000, 'A'), error('b', now - 4000, 'A'), error('c', now - 3000, 'B'), eventRecord('d', now - 2000)])
      assert.deepEqual(first.issues?.map((c) => [c.kind, c.issue.title, c.issue.events]).sort(), [['new', 'Error A', 2], ['new', 'Error B', 1]])
      const second = await store('v2', [error('a', now - 1000, 'A')])
      assert.equal(second.issues, undefined, 'a known issue is not new again')
      const a = await issueOf('A')
      assert.ok(a)
      assert.equal(a.events, 3)
      assert.equal(a.sessions, 2)
      assert.equal(a.first_seen_at, now - 5000)
      assert.equal(a.last_seen_at, now - 1000)
      assert.equal(a.status, 'open')
      assert.equal(await countIssues(db, projectId, {}), 2)
      assert.equal(await countFiltered(db, projectId, { cutoff: 0 }, { issue: a.id }), 2)
      const latest = await latestIssueEvent(db, projectId, a.id, 0)
      assert.equal(latest?.id, 'a')
      assert.equal(latest.created_at, now - 1000)
    })

    it('a retried batch changes no count, and a partly new batch counts only what is new', async () => {
      await store('v1', [error('a', now - 5000, 'A'), error('b', now - 4000, 'A')])
      const before = await issueOf('A')
      assert.equal(before?.events, 3)
      await store('v1', [error('b', now - 4000, 'A'), error('e', now - 900, 'A')])
      const after = await issueOf('A')
      assert.equal(after?.events, 4)
      assert.equal(after.sessions, 2)
    })

    it('counts a new issue in the totals with the group\'s other hot rows, after its issue rows, not where it creates it', async () => {
      const own = (await createProject(db, { name: 'Totals', domain: 'totals.example' })).id
      statements.length = 0
      const events = [error('t1', now - 100, 'TOTALS'), eventRecord('t2', now - 50)]
      await writeBatches(db, [writeJob(own, 'v-totals', events, now, 0, events.map((e) => (e.type === 'ERROR' ? group('TOTALS') : null)))])
      const at = (re: RegExp) => statements.findIndex((q) => re.test(q))
      const created = at(/^insert into "issues"/i)
      const counted = at(/update "?issues"? set "?events"?/i)
      // Two writers creating two new issues would otherwise each hold the totals row while waiting for the other's issue.
      assert.ok(created >= 0 && counted > created && at(/^insert into "issue_totals"/i) > counted, statements.join('\n'))
      const open = await db.selectFrom('issue_totals').select('issues').where('project_id', '=', own).where('status', '=', 'open').executeTakeFirst()
      assert.equal(Number(open?.issues), 1)
    })

    it('counts a group\'s issues, their day counts and its new term bits in one statement each on PostgreSQL, with every count exact', async () => {
      const own = (await createProject(db, { name: 'One statement', domain: 'one-statement.example' })).id
      const job = (key: string, events: EventRecord[]) => writeJob(own, key, events, now, 0, events.map((e) => group(e.message ?? '')))
      await writeBatches(db, [job('o1', [error('o1a', now - 900, 'ONE-A')]), job('o2', [error('o2b', now - 800, 'ONE-B')])])
      statements.length = 0
      // Three issues across two visits and two days, one of them new to the group.
      await writeBatches(db, [
        job('o1', [error('o1c', now - DAY_MS, 'ONE-A'), error('o1d', now - 700, 'ONE-B')]),
        job('o3', [error('o3e', now - 600, 'ONE-A'), error('o3f', now - 500, 'ONE-C')]),
      ])
      const updates = statements.filter((q) => /update "?issues"? set "?events"?/i.test(q))
      if (engine === 'postgres') {
        assert.equal(updates.length, 1, statements.join('\n'))
        assert.match(updates[0] ?? '', /insert into "issue_days"/i, 'the day counts in the same statement')
        assert.equal(statements.filter((q) => /"term_bits"/i.test(q)).length, 1, 'term bits with the day counters')
        assert.match(statements.find((q) => /"term_bits"/i.test(q)) ?? '', /"session_days"/i)
      } else {
        assert.equal(updates.length, 3, statements.join('\n'))
      }
      const issues = await db.selectFrom('issues').select(['title', 'events', 'sessions', 'first_seen_at', 'last_seen_at', 'last_event_id'])
        .where('project_id', '=', own).orderBy('title').execute()
      assert.deepEqual(issues.map((i) => [i.title, i.events, i.sessions, i.first_seen_at, i.last_seen_at, i.last_event_id]), [
        ['Error ONE-A', 3, 2, now - DAY_MS, now - 600, 'o3e'], ['Error ONE-B', 2, 2, now - 800, now - 700, 'o1d'], ['Error ONE-C', 1, 1, now - 500, now - 500, 'o3f'],
      ])
      const days = await db.selectFrom('issue_days as d').innerJoin('issues as i', (j) => j.onRef('i.project_id', '=', 'd.project_id').onRef('i.id', '=', 'd.issue_id'))
        .select(['i.title', 'd.day', 'd.events']).where('d.project_id', '=', own).orderBy('i.title').orderBy('d.day').execute()
      const today = Math.floor(now / DAY_MS)
      assert.deepEqual(days.map((d) => [d.title, d.day, d.events]), [
        ['Error ONE-A', today - 1, 1], ['Error ONE-A', today, 2], ['Error ONE-B', today, 2], ['Error ONE-C', today, 1],
      ])
    })

    it('looks a group\'s fingerprints up in one statement, whichever of its batches brings each', async () => {
      const own = (await createProject(db, { name: 'Lookups', domain: 'lookups.example' })).id
      const job = (key: string, fp: string, id: string, at: number) => writeJob(own, key, [error(id, at, fp)], now, 0, [group(fp)])
      await writeBatches(db, [job('l1', 'LOOK-A', 'la1', now - 500), job('l2', 'LOOK-B', 'lb1', now - 400)])
      statements.length = 0
      const outcomes = await writeBatches(db, [job('l3', 'LOOK-A', 'la2', now - 300), job('l4', 'LOOK-B', 'lb2', now - 200)])
      assert.ok(outcomes.every((o) => 'result' in o))
      assert.equal(statements.filter((q) => /from "issue_fingerprints"/i.test(q)).length, 1, statements.join('\n'))
    })

    it('an issue created for a retry whose events were all stored already is removed again', async () => {
      // Event 'c' of v1 is stored under B; the same event now grouped as Z (as when a map arrived in between).
      const result = await store('v1', [error('c', now - 3000, 'Z')])
      assert.equal(result.duplicates, 1)
      assert.equal(result.issues, undefined)
      assert.equal(await issueOf('Z'), undefined)
      assert.equal(await countIssues(db, projectId, { status: 'open' }), 2)
    })

    it('resolving moves the totals; an event after the resolve reopens it once, an older one does not', async () => {
      const a = await issueOf('A')
      assert.ok(a)
      assert.equal(await setIssueStatus(db, projectId, a.id, 'resolved', now), 'open')
      assert.equal(await countIssues(db, projectId, { status: 'resolved' }), 1)
      assert.equal(await countIssues(db, projectId, { status: 'open' }), 1)
      const late = await store('v3', [error('old', now - 60_000, 'A')])
      assert.equal(late.issues, undefined, 'an event from before the resolve is no regression')
      assert.equal((await findIssue(db, projectId, a.id))?.status, 'resolved')
      const again = await store('v3', [error('new', now + 1000, 'A')], now + 2000)
      assert.deepEqual(again.issues?.map((c) => c.kind), ['regression'])
      assert.equal((await findIssue(db, projectId, a.id))?.status, 'open')
      assert.equal(await countIssues(db, projectId, { status: 'open' }), 2)
      assert.equal(await countIssues(db, projectId, { status: 'resolved' }), 0)
      assert.equal(await setIssueStatus(db, projectId, a.id, 'ignored', now), 'open')
      assert.equal(await setIssueStatus(db, projectId, 'nope', 'ignored', now), null)
      assert.equal(await countIssues(db, projectId, {}), 2)
    })

    it('a group commit counts every batch of the group once, and a batch that fails alone counts nothing', async () => {
      const project = (await createProject(db, { name: 'Group', domain: 'group.example' })).id
      const job = (key: string, id: string) => writeJob(project, key, [error(id, now - 100, 'G')], now, 0, [group('G')])
      await writeBatches(db, [{ ...writeJob(project, 'g3', [], now), seed: { ...writeJob(project, 'g3', [], now).seed, id: 'g3-owner' } }])
      // Import semantics: the key belongs to another session id, so this batch is refused, alone.
      const bad = { ...job('g3', 'c'), seed: { ...job('g3', 'c').seed, id: 'someone-else' } }
      const outcomes = await writeBatches(db, [job('g1', 'a'), bad, job('g2', 'b'), job('g1', 'd')])
      assert.deepEqual(outcomes.map((o) => 'result' in o), [true, false, true, true])
      const first = outcomes[0]
      assert.ok(first && 'result' in first)
      assert.deepEqual(first.result.issues?.map((c) => [c.kind, c.issue.events, c.issue.sessions]), [['new', 3, 2]],
        'the first batch of the group to store its events carries the new issue')
      const [g] = await listIssues(db, project, {}, { limit: 10, offset: 0 })
      assert.deepEqual([g?.events, g?.sessions], [3, 2])
    })

    it('retention takes deleted visits out of the counts and keeps the issue with its status', async () => {
      const project = (await createProject(db, { name: 'Expiring', domain: 'expiring.example' })).id
      const old = now - 40 * DAY_MS
      const groups = [group('X'), group('X')]
      await writeBatches(db, [writeJob(project, 'old', [error('a', old, 'X'), error('b', old + 1, 'X')], now, 0, groups)])
      await writeBatches(db, [writeJob(project, 'new', [error('a', now - 10, 'X')], now, 0, [group('X')])])
      const [x] = await listIssues(db, project, {}, { limit: 10, offset: 0 })
      assert.ok(x)
      assert.deepEqual([x.events, x.sessions], [3, 2])
      assert.equal(await deleteExpired(db, project, now - 30 * DAY_MS, 100), 1)
      const after = await findIssue(db, project, x.id)
      assert.deepEqual([after?.events, after?.sessions, after?.first_seen_at], [1, 1, old])
      assert.equal(await deleteExpired(db, project, now + 1, 100), 1)
      const empty = await findIssue(db, project, x.id)
      assert.deepEqual([empty?.events, empty?.sessions, empty?.status], [0, 0, 'open'])
      assert.equal(await countFiltered(db, project, { cutoff: 0 }, { issue: x.id }), 0)
      assert.deepEqual(await issueEventsPerDay(db, project, x.id, 0), [], 'no day keeps a count of deleted events')
      assert.equal(await latestIssueEvent(db, project, x.id, 0), undefined)
    })

    it('counts events per day, points at the latest event, and points again when its visit is deleted', async () => {
      const project = (await createProject(db, { name: 'Latest', domain: 'latest.example' })).id
      const day = Math.floor(now / DAY_MS)
      // The long visit hit the bug first but stays active; the short one hit it last and ends first.
      await writeBatches(db, [writeJob(project, 'long', [error('a', now - DAY_MS, 'L'), error('b', now - 20, 'L')], now, 0, [group('L'), group('L')])])
      await writeBatches(db, [writeJob(project, 'short', [error('c', now - 10, 'L')], now, 0, [group('L')])])
      await writeBatches(db, [writeJob(project, 'long', [eventRecord('d', now, 'CLICK')], now, 0, [null])])
      const [l] = await listIssues(db, project, {}, { limit: 10, offset: 0 })
      assert.ok(l)
      assert.deepEqual(await issueEventsPerDay(db, project, l.id, (day - 1) * DAY_MS), [{ day: day - 1, events: 1 }, { day, events: 2 }])
      assert.equal((await issueEventsPerDay(db, project, l.id, day * DAY_MS)).length, 1, 'from the day of `from` on')
      assert.equal((await latestIssueEvent(db, project, l.id, 0))?.id, 'c')
      assert.equal(await deleteExpired(db, project, now - 5, 100), 1, 'the short visit expires')
      assert.equal((await latestIssueEvent(db, project, l.id, 0))?.id, 'b', 'the latest event of the visits left')
      assert.deepEqual(await issueEventsPerDay(db, project, l.id, 0), [{ day: day - 1, events: 1 }, { day, events: 1 }])
    })

    it('lists by last seen, events or visits, filters by status and time, and never shows another project\'s issues', async () => {
      const other = (await createProject(db, { name: 'Other', domain: 'other.example' })).id
      await writeBatches(db, [writeJob(other, 'o', [error('a', now, 'A')], now, 0, [group('A')])])
      const byTime = await listIssues(db, projectId, {}, { limit: 10, offset: 0 })
      assert.deepEqual(byTime.map((i) => i.title), ['Error A', 'Error B'])
      const byEvents = await listIssues(db, projectId, {}, { limit: 10, offset: 0 }, 'events')
      assert.equal(byEvents[0]?.title, 'Error A')
      assert.deepEqual((await listIssues(db, projectId, { status: 'ignored' }, { limit: 10, offset: 0 })).map((i) => i.title), ['Error A'])
      assert.equal(await countIssues(db, projectId, { from: now - 3500, to: now }), 1)
      assert.equal(await countIssues(db, other, {}), 1)
    })

    it('a walk led by an issue or a user probes a list of its visits once on PostgreSQL, and still checks every other filter', async () => {
      const other = (await createProject(db, { name: 'Listed', domain: 'listed.example' })).id
      const job = (key: string, events: EventRecord[], user?: string) => {
        const base = writeJob(other, key, events, now, 0, events.map((e) => (e.type === 'ERROR' ? group(e.message ?? '') : null)))
        return user === undefined ? base : { ...base, seed: { ...base.seed, user: { id: user, traits: null } } }
      }
      // 40 visits: 3 hit issue R (one of them user u1's), and u1 has a calm visit too. A first page of one walks ~13
      // entries of the list order; listing the driver's 2–3 visits once costs less than probing its index for each.
      await writeBatches(db, [
        ...Array.from({ length: 36 }, (_, i) => job(`calm-${String(i)}`, [eventRecord(`c${String(i)}`, now - 10_000 + i, 'CLICK')])),
        job('u1-calm', [eventRecord('u1c', now - 7000, 'CLICK')], 'u1'),
        job('r-old', [error('r1', now - 9000, 'R')]),
        job('r-mid', [error('r2', now - 5000, 'R')], 'u1'),
        job('r-new', [error('r3', now - 1000, 'R')]),
      ])
      const r = (await listIssues(db, other, {}, { limit: 10, offset: 0 })).find((i) => i.title === 'Error R')
      assert.ok(r)
      const keys = (rows: readonly { session_key: string }[]) => rows.map((row) => row.session_key)
      const page = { limit: 1, offset: 0 }

      // The issue leads (3 visits; has:errors ties and comes later): on PostgreSQL its links are listed once and the
      // page probes that list, not issue_sessions; the term is still probed.
      statements.length = 0
      const byIssue = await searchSessions(db, other, { cutoff: 0 }, page, { issue: r.id, terms: [term.errors] })
      assert.deepEqual([byIssue.total, keys(byIssue.rows)], [3, ['r-new']])
      const issuePage = statements.at(-1) ?? ''
      if (engine === 'postgres') {
        assert.ok(statements.some((text) => /json_agg/.test(text) && text.includes('issue_sessions')), 'the issue\'s visits listed once')
        assert.ok(issuePage.includes('in (select unnest(') && !issuePage.includes('issue_sessions') && issuePage.includes('session_terms'),
          `the page probes the list and the term, not the issue's links: ${issuePage}`)
      }

      // The user leads (2 visits against the issue's 3): listed on PostgreSQL, the user's filter is its list, and the
      // issue is still probed, which leaves out u1's calm visit.
      statements.length = 0
      const byUser = await searchSessions(db, other, { cutoff: 0 }, page, { issue: r.id, user: 'u1' })
      assert.deepEqual([byUser.total, keys(byUser.rows)], [1, ['r-mid']])
      const userPage = statements.at(-1) ?? ''
      if (engine === 'postgres') {
        assert.ok(userPage.includes('in (select unnest(') && userPage.includes('issue_sessions') && !userPage.includes(`(user_id || '')`),
          `the page probes the list and the issue, not the user again: ${userPage}`)
      }
      assert.deepEqual(keys((await searchSessions(db, other, { cutoff: 0 }, { limit: 10, offset: 0 }, { issue: r.id, user: 'u1' })).rows), ['r-mid'])
    })

    it('picks getIssue\'s visits among its latest visits to start, most recently seen first', async () => {
      const w1 = (await store('w1', [error('w1a', now - 30_000, 'W')], now - 30_000)).sessionId
      const w2 = (await store('w2', [error('w2a', now - 20_000, 'W')], now - 20_000)).sessionId
      const w3 = (await store('w3', [error('w3a', now - 10_000, 'W')], now - 10_000)).sessionId
      // The first visit to start is the last seen.
      await store('w1', [eventRecord('w1b', now - 1000)])
      const w = await issueOf('W')
      assert.ok(w)
      const ids = async (window: number) => (await issueVisits(db, projectId, w.id, 0, 10, window)).map((v) => v.id)
      assert.deepEqual(await ids(3), [w1, w3, w2])
      assert.deepEqual(await ids(2), [w3, w2], 'the visit that started first is outside a window of two')
      assert.deepEqual((await issueVisits(db, projectId, w.id, 0, 1, 3)).map((v) => v.id), [w1], 'at most `limit`')
    })
  })
}
