import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Kysely } from 'kysely'
import type { Database } from '../../../src/database.ts'
import type { EventRecord } from '../../../src/contract/event-types.ts'
import { createProject } from '../../../src/projects/service.ts'
import { countSentryUnits, eraseUserUnits, expireUnits } from '../../../src/releases/index.ts'
import { findRelease, releaseDays } from '../../../src/releases/read.ts'
import { sessionUnits } from '../../../src/sentry/sessions.ts'
import { DAY_MS, dayOf } from '../../../src/util/time.ts'
import { deleteExpired, eraseVisits, noFacts, writeBatches } from '../../../src/visits/index.ts'
import type { EventGroup } from '../../../src/issues/index.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'
import { eventRecord, writeJob } from '../../helpers/factories.ts'

const item = (type: 'session' | 'sessions', payload: Record<string, unknown>) =>
  ({ type, header: { type }, payload: Buffer.from(JSON.stringify(payload)) })

for (const engine of testEngines()) {
  describe(`release health store [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    let db: Kysely<Database>
    let projectId = ''
    const now = Date.UTC(2026, 10, 21, 15, 0, 0)
    let n = 0

    before(async () => {
      handle = await openTestDatabase(engine)
      db = handle.db
    })
    after(() => handle.dispose())
    const freshProject = async () => { projectId = (await createProject(db, { name: `R${++n}`, domain: 'r.example' })).id }

    /** Stores a batch of our SDK in `key`'s visit, of `release` and `user`, grouping ERRORs by their message. */
    async function visit(key: string, events: EventRecord[], release: string | null, user: string | null = null, at = now): Promise<string> {
      const groups = events.map((e): EventGroup | null => (e.type === 'ERROR' ? { version: 1, fingerprint: e.message ?? '', title: e.message ?? '', culprit: null } : null))
      const job = writeJob(projectId, key, events, at, 0, groups)
      const seed = { ...noFacts(), sessionKey: key, release, environment: release === null ? null : 'production', user: user === null ? null : { id: user, traits: null } }
      const [outcome] = await writeBatches(db, [{ ...job, seed }])
      assert.ok(outcome && 'result' in outcome, 'stored')
      return outcome.result.sessionId
    }
    const row = async (release: string, environment = 'production') => {
      const [r] = await findRelease(db, projectId, release, environment)
      return r && { sessions: r.sessions, errored: r.errored, crashed: r.crashed, abnormal: r.abnormal, users: r.users, crashedUsers: r.crashed_users }
    }
    const sentry = (units: ReturnType<typeof sessionUnits>, cutoff = 0) => countSentryUnits(db, projectId, units, cutoff)
    const session = (sid: string, fields: Record<string, unknown>) => sessionUnits(item('session', {
      sid, did: 'u1', init: true, started: new Date(now - 60_000).toISOString(), timestamp: new Date(now).toISOString(), status: 'ok', errors: 0,
      attrs: { release: 'app@2', environment: 'production' }, ...fields,
    }), now)

    it('counts a visit once; an unhandled error later moves it from ok to crashed, a handled one makes it errored', async () => {
      await freshProject()
      await visit('a', [eventRecord('a1', now - 5000)], '1.0', 'alice')
      assert.deepEqual(await row('1.0'), { sessions: 1, errored: 0, crashed: 0, abnormal: 0, users: 1, crashedUsers: 0 })
      await visit('a', [eventRecord('a2', now - 4000, 'ERROR', { message: 'Uncaught TypeError: x is undefined' })], '1.0', 'alice')
      await visit('a', [eventRecord('a2', now - 4000, 'ERROR', { message: 'Uncaught TypeError: x is undefined' })], '1.0', 'alice')
      assert.deepEqual(await row('1.0'), { sessions: 1, errored: 0, crashed: 1, abnormal: 0, users: 1, crashedUsers: 1 })
      await visit('b', [eventRecord('b1', now - 3000, 'ERROR', { message: 'TypeError: handled' })], '1.0', 'bob')
      await visit('b', [eventRecord('b2', now - 2000, 'ERROR', { message: 'Unhandled rejection: Error: nope' })], '1.0', 'bob')
      await visit('c', [eventRecord('c1', now - 3000, 'ERROR', { message: 'RangeError: handled' })], '1.0', 'bob')
      assert.deepEqual(await row('1.0'), { sessions: 3, errored: 1, crashed: 2, abnormal: 0, users: 2, crashedUsers: 2 })
      const days = await releaseDays(db, projectId, '1.0', 'production')
      assert.deepEqual(days.map((d) => [d.day, d.sessions, d.crashed, d.errored]), [[dayOf(now), 3, 2, 1]])
    })

    it('a later batch without a release still moves its visit when it brings an error', async () => {
      await freshProject()
      await visit('late-err', [eventRecord('l1', now - 5000)], '1.1', 'alice')
      await visit('late-err', [eventRecord('l2', now - 4000)], null)
      await visit('late-err', [eventRecord('l3', now - 3000, 'ERROR', { message: 'Uncaught Error: late' })], null)
      assert.deepEqual(await row('1.1'), { sessions: 1, errored: 0, crashed: 1, abnormal: 0, users: 1, crashedUsers: 1 })
    })

    it('a visit without a release, or made only from Sentry events, counts nowhere', async () => {
      await freshProject()
      await visit('sentry-e-0123', [eventRecord('s1', now, 'ERROR', { message: 'Uncaught Error' })], '2.0')
      await visit('plain', [eventRecord('p1', now)], null)
      assert.equal(await row('2.0'), undefined)
      assert.equal((await db.selectFrom('release_units').selectAll().where('project_id', '=', projectId).execute()).length, 0)
    })

    it('a Sentry session counts once by sid: updates replace it, a late older update changes nothing', async () => {
      await freshProject()
      assert.equal(await sentry(session('s1', {})), 1)
      await sentry(session('s1', {}))
      assert.deepEqual(await row('app@2'), { sessions: 1, errored: 0, crashed: 0, abnormal: 0, users: 1, crashedUsers: 0 })
      await sentry(session('s1', { errors: 2, timestamp: new Date(now + 1000).toISOString() }))
      assert.deepEqual(await row('app@2'), { sessions: 1, errored: 1, crashed: 0, abnormal: 0, users: 1, crashedUsers: 0 })
      await sentry(session('s1', { status: 'crashed', timestamp: new Date(now + 2000).toISOString() }))
      await sentry(session('s1', { status: 'exited', timestamp: new Date(now + 1500).toISOString() }))
      assert.deepEqual(await row('app@2'), { sessions: 1, errored: 0, crashed: 1, abnormal: 0, users: 1, crashedUsers: 1 })
      await sentry(session('s2', { status: 'abnormal', did: 'u2' }))
      assert.deepEqual(await row('app@2'), { sessions: 2, errored: 0, crashed: 1, abnormal: 1, users: 2, crashedUsers: 1 })
      assert.deepEqual(session('s3', { attrs: {} }), [], 'no release: nothing to count')
    })

    it('an aggregate adds its counts once however often it is sent; one without did adds no users', async () => {
      await freshProject()
      const aggregate = item('sessions', { attrs: { release: 'api@1', environment: 'production' }, aggregates: [
        { started: new Date(now - 60_000).toISOString(), exited: 10, errored: 2, crashed: 1 },
        { started: new Date(now).toISOString(), did: 'u9', exited: 1, abnormal: 1 },
      ] })
      const header = { sent_at: new Date(now).toISOString() }
      await sentry(sessionUnits(aggregate, now, header))
      await sentry(sessionUnits(aggregate, now, header))
      assert.deepEqual(await row('api@1'), { sessions: 15, errored: 2, crashed: 1, abnormal: 1, users: 1, crashedUsers: 0 })
    })

    it('retention takes expired visits and Sentry sessions out of the counts exactly; past it nothing is counted', async () => {
      await freshProject()
      const old = now - 40 * DAY_MS
      await visit('old', [eventRecord('o1', old, 'ERROR', { message: 'Uncaught Error: old' })], '3.0', 'alice', old)
      await visit('new', [eventRecord('n1', now)], '3.0', 'bob')
      await sentry(sessionUnits(item('session', { sid: 'old-s', did: 'carol', started: new Date(old).toISOString(), status: 'crashed', attrs: { release: '3.0', environment: 'production' } }), now))
      assert.deepEqual(await row('3.0'), { sessions: 3, errored: 0, crashed: 2, abnormal: 0, users: 3, crashedUsers: 2 })
      const cutoff = now - 30 * DAY_MS
      assert.equal(await deleteExpired(db, projectId, cutoff, 100), 1)
      assert.equal(await expireUnits(db, projectId, cutoff, 100), 1)
      assert.equal(await expireUnits(db, projectId, cutoff, 100), 0)
      assert.deepEqual(await row('3.0'), { sessions: 1, errored: 0, crashed: 0, abnormal: 0, users: 1, crashedUsers: 0 })
      assert.deepEqual((await releaseDays(db, projectId, '3.0', 'production')).map((d) => d.day), [dayOf(now)], 'the old day is gone')
      assert.equal(await sentry(sessionUnits(item('session', { sid: 'older', started: new Date(old).toISOString(), attrs: { release: '3.0', environment: 'production' } }), now), cutoff), 0)
    })

    it('erasing a user takes their visits and their Sentry sessions out of the counts', async () => {
      await freshProject()
      await visit('e1', [eventRecord('e1', now, 'ERROR', { message: 'Uncaught Error: boom' })], '4.0', 'dave')
      await visit('e2', [eventRecord('e2', now)], '4.0', 'erin')
      await sentry(sessionUnits(item('session', { sid: 'd-s', did: 'dave', started: new Date(now).toISOString(), status: 'crashed', attrs: { release: '4.0', environment: 'production' } }), now))
      assert.deepEqual(await row('4.0'), { sessions: 3, errored: 0, crashed: 2, abnormal: 0, users: 2, crashedUsers: 1 })
      assert.equal(await eraseVisits(db, projectId, { userId: 'dave' }), 1)
      assert.equal(await eraseUserUnits(db, projectId, 'dave'), 1)
      assert.deepEqual(await row('4.0'), { sessions: 1, errored: 0, crashed: 0, abnormal: 0, users: 1, crashedUsers: 0 })
      const users = await db.selectFrom('release_users').select('user_key').where('project_id', '=', projectId).execute()
      assert.deepEqual(users.map((u) => u.user_key), ['erin'], 'no trace of the erased user')
    })

    it('an issue keeps the release of its first event', async () => {
      await freshProject()
      await visit('i1', [eventRecord('i1', now, 'ERROR', { message: 'Uncaught Error: new in 5' })], '5.0')
      await visit('i2', [eventRecord('i2', now + 1, 'ERROR', { message: 'Uncaught Error: new in 5' })], '6.0')
      const issues = await db.selectFrom('issues').select(['title', 'release', 'environment']).where('project_id', '=', projectId).execute()
      assert.deepEqual(issues, [{ title: 'Uncaught Error: new in 5', release: '5.0', environment: 'production' }])
      const totals = await db.selectFrom('issue_release_totals').select(['release', 'issues']).where('project_id', '=', projectId).execute()
      assert.deepEqual(totals, [{ release: '5.0', issues: 1 }], 'counted once, for the release of its first event')
    })
  })
}
