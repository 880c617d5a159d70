import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Kysely } from 'kysely'
import type { Database } from '../../../src/database.ts'
import { AppError } from '../../../src/errors.ts'
import type { EventRecord } from '../../../src/contract/event-types.ts'
import { createWriter } from '../../../src/visits/writer.ts'
import { writeBatches, type WriteJob } from '../../../src/visits/write.ts'
import { createProject } from '../../../src/projects/service.ts'
import { openTestDatabase, storedTermBits, storedTerms } from '../../helpers/databases.ts'
import { eventRecord, writeJob } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'

/** Counts transactions opened through this database handle. */
function countingTransactions(db: Kysely<Database>): { db: Kysely<Database>; count: () => number } {
  let n = 0
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === 'transaction') n++
      const value: unknown = Reflect.get(target, prop, target)
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    },
  })
  return { db: proxy, count: () => n }
}

for (const engine of testEngines()) {
  describe(`group-commit writer [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    let projectId: string
    const now = Date.now()
    const job = (sessionKey: string, events: EventRecord[], extra: Partial<WriteJob['seed']> = {}): WriteJob => {
      const made = writeJob(projectId, sessionKey, events, now)
      return { ...made, seed: { ...made.seed, ...extra } }
    }
    /** The statements run while `recording` is on. */
    const statements: string[] = []
    let recording = false
    before(async () => {
      handle = await openTestDatabase(engine, { onQuery: (q) => { if (recording) statements.push(q.sql) } })
      projectId = (await createProject(handle.db, { name: 'W', domain: 'w.example' })).id
    })
    after(() => handle.dispose())

    it('commits batches that arrive together in one transaction', async () => {
      const counting = countingTransactions(handle.db)
      const writer = createWriter(counting.db)
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => writer.submit(job(`group-${i}-key`, [eventRecord('a', now), eventRecord('b', now)]))))
      await writer.close()
      assert.ok(results.every((r) => r.accepted === 2))
      assert.equal(counting.count(), 1)
    })

    it('with two lanes commits two groups, and a visit\'s batches keep their order across them', async () => {
      const counting = countingTransactions(handle.db)
      const writer = createWriter(counting.db, { lanes: 2 })
      const others = Array.from({ length: 40 }, (_, i) => writer.submit(job(`lanes-${i}-key`, [eventRecord('a', now)])))
      const same = Array.from({ length: 10 }, (_, i) => writer.submit(job('lanes-ordered-key', [eventRecord(`e${i}`, now)])))
      const results = await Promise.all([...others, ...same])
      await writer.close()
      assert.ok(results.every((r) => r.accepted === 1))
      assert.equal(counting.count(), 2, 'one group per lane')
      const rows = await handle.db.selectFrom('events').innerJoin('sessions', (j) => j.onRef('sessions.id', '=', 'events.session_id'))
        .select(['events.id']).where('sessions.session_key', '=', 'lanes-ordered-key').orderBy('events.seq').execute()
      assert.deepEqual(rows.map((r) => r.id), Array.from({ length: 10 }, (_, i) => `e${i}`))
    })

    it('keeps one session\'s batches in arrival order across a group', async () => {
      const writer = createWriter(handle.db)
      const same = Array.from({ length: 10 }, (_, i) => writer.submit(job('ordered-key', [eventRecord(`e${i}`, now)])))
      const other = writer.submit(job('another-key', [eventRecord('x', now)]))
      await Promise.all([...same, other])
      await writer.close()
      const rows = await handle.db.selectFrom('events').innerJoin('sessions', (j) => j.onRef('sessions.id', '=', 'events.session_id'))
        .select(['events.id', 'events.seq']).where('sessions.session_key', '=', 'ordered-key').orderBy('events.seq').execute()
      assert.deepEqual(rows.map((r) => r.id), Array.from({ length: 10 }, (_, i) => `e${i}`))
    })

    it('fails a bad batch alone and commits the rest of its group', async () => {
      const writer = createWriter(handle.db)
      await writer.submit(job('conflict-key', [eventRecord('a', now)], { id: 'conflict-owner' }))
      const outcomes = await Promise.allSettled([
        writer.submit(job('fine-1-key', [eventRecord('a', now)])),
        // Import semantics: the key belongs to another session id, so this batch is refused.
        writer.submit(job('conflict-key', [eventRecord('b', now)], { id: 'someone-else' })),
        writer.submit(job('fine-2-key', [eventRecord('a', now)])),
      ])
      await writer.close()
      assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled'])
      const rejected = outcomes[1]
      assert.ok(rejected.status === 'rejected' && rejected.reason instanceof AppError)
      const stored = await handle.db.selectFrom('sessions').select('session_key')
        .where('session_key', 'in', ['fine-1-key', 'fine-2-key']).execute()
      assert.equal(stored.length, 2)
      const conflict = await handle.db.selectFrom('events').select('id').where('session_id', '=', 'conflict-owner').execute()
      assert.deepEqual(conflict.map((e) => e.id), ['a'], 'nothing of the refused batch was stored')
    })

    it('writes a group without savepoints while no batch fails, and again with one per batch when one does', async () => {
      const savepoints = async (jobs: WriteJob[]) => {
        recording = true
        const outcomes = await writeBatches(handle.db, jobs).finally(() => { recording = false })
        return { ok: outcomes.map((o) => 'result' in o), savepoints: statements.splice(0).filter((q) => /^savepoint /i.test(q)).length }
      }
      assert.deepEqual(await savepoints([job('plain-1-key', [eventRecord('a', now)]), job('plain-2-key', [eventRecord('a', now)])]),
        { ok: [true, true], savepoints: 0 })
      await writeBatches(handle.db, [job('owned-key', [eventRecord('a', now)], { id: 'owned-owner' })])
      const bad = job('owned-key', [eventRecord('b', now)], { id: 'someone-else' })
      // The first try is rolled back whole at the bad batch; the second gives each of the three its savepoint.
      assert.deepEqual(await savepoints([job('plain-3-key', [eventRecord('a', now)]), bad, job('plain-4-key', [eventRecord('a', now)])]),
        { ok: [true, false, true], savepoints: 3 })
      // A group of one needs none: its failure is the group's.
      assert.deepEqual(await savepoints([bad]), { ok: [false], savepoints: 0 })
      const stored = await handle.db.selectFrom('events').innerJoin('sessions', (j) => j.onRef('sessions.id', '=', 'events.session_id'))
        .select('sessions.session_key').where('sessions.session_key', 'in', ['plain-3-key', 'plain-4-key', 'owned-key']).execute()
      assert.deepEqual(stored.map((r) => r.session_key).sort(), ['owned-key', 'plain-3-key', 'plain-4-key'], 'each stored once, the bad batch not at all')
    })

    it('inserts the events of a group\'s live batches together, and counts a retried event once in its visit and issue', async () => {
      const group = { version: 1, fingerprint: 'together-fp', title: 'TypeError: together', culprit: null }
      const batch = (key: string, ids: string[]) => {
        const events = ids.map((id) => eventRecord(id, now, id.endsWith('err') ? 'ERROR' : 'CLICK'))
        return writeJob(projectId, key, events, now, 0, events.map((e) => (e.type === 'ERROR' ? group : null)))
      }
      // Three live visits; the third already holds three of the events its next batch resends.
      await writeBatches(handle.db, [batch('together-1-key', ['s']), batch('together-2-key', ['s']), batch('together-3-key', ['s', 'c1', 'c2', 'c3err'])])
      recording = true
      const outcomes = await writeBatches(handle.db, [
        batch('together-1-key', ['a1', 'a2', 'a3', 'a4', 'a5err']),
        batch('together-2-key', ['b1', 'b2', 'b3', 'b4', 'b5']),
        // The first batch again, in the same group (a retry sent before the first was answered), and a partial resend.
        batch('together-1-key', ['a1', 'a2', 'a3', 'a4', 'a5err']),
        batch('together-3-key', ['c1', 'c2', 'c3err', 'c4', 'c5err']),
      ]).finally(() => { recording = false })
      const inserts = statements.splice(0).filter((q) => /^insert into "events"/i.test(q))
      assert.equal(inserts.length, 1, 'the 20 events of four batches in one INSERT')
      assert.deepEqual(outcomes.map((o) => ('result' in o ? [o.result.accepted, o.result.duplicates] : o.error)), [[5, 0], [5, 0], [0, 5], [2, 3]])
      const sessions = await handle.db.selectFrom('sessions').select(['session_key', 'events_total', 'events_errors'])
        .where('project_id', '=', projectId).where('session_key', 'like', 'together-%').orderBy('session_key').execute()
      assert.deepEqual(sessions.map((r) => [r.session_key, r.events_total, r.events_errors]),
        [['together-1-key', 6, 1], ['together-2-key', 6, 0], ['together-3-key', 6, 2]], 'each event counted once in its visit')
      const issue = await handle.db.selectFrom('issues').select(['events', 'sessions']).where('project_id', '=', projectId)
        .where('title', '=', 'TypeError: together').executeTakeFirstOrThrow()
      assert.deepEqual([issue.events, issue.sessions], [3, 2], 'c3err, a5err and c5err, in two visits')
    })

    it('reserves a group\'s live visits in one statement and leaves every visit as writing its batches one by one does', async () => {
      const T = now - 3_600_000
      const MINUTE = 60_000
      const ev = (id: string, at: number, type = 'CLICK', fields: Partial<EventRecord> = {}) => eventRecord(id, at, type, fields)
      // Every error is grouped into one issue, whose counts must come out the same too.
      const issue = { version: 1, fingerprint: 'runs-fp', title: 'TypeError: runs', culprit: null }
      const seeded = (p: string, key: string, events: EventRecord[], seed: Partial<WriteJob['seed']> = {}, cutoff = 0): WriteJob => {
        const made = writeJob(p, key, events, now, cutoff, events.map((e) => (e.type === 'ERROR' ? issue : null)))
        return { ...made, seed: { ...made.seed, ...seed } }
      }
      const chunk = { id: 'chunk-1', started_at: T, ended_at: T + MINUTE, events: 2, full_snapshot: 1, bytes: 10, data: Buffer.from('x'), dropped: null }
      // The visits as they were before the group, then the group: each kind of batch a group can hold.
      const initial = (p: string) => [
        seeded(p, 'facts-key', [ev('f0', T)], { country: 'DE', browser: 'Firefox', user: { id: 'u1', traits: null }, release: 'r1' }),
        seeded(p, 'early-key', [ev('e0', T + 10 * MINUTE)]),
        seeded(p, 'expired-key', [ev('x0', T - 2 * 86_400_000)]),
        seeded(p, 'twice-key', [ev('t0', T)]),
        seeded(p, 'empty-first-key', [ev('m0', T)]),
        seeded(p, 'retry-key', [ev('r1', T), ev('r2', T)]),
        seeded(p, 'plain-key', [ev('p0', T)]),
        seeded(p, 'gap-key', [ev('g0', T)], { country: 'SE' }),
        seeded(p, 'cutoff-key', [ev('c0', T - 3 * 86_400_000)]),
        seeded(p, 'late-start-key', [ev('l0', T + 10 * MINUTE)]),
        seeded(p, 'recorded-key', [ev('rec0', T)]),
      ]
      const cutoff = T - 86_400_000
      const group = (p: string) => [
        // First facts kept (country), latest ones replaced (user with its traits, tags), an absent latest one kept (release).
        seeded(p, 'facts-key', [ev('f1', T + MINUTE), ev('f2', T + MINUTE, 'HTTP_ERROR', { statusCode: 500 })],
          { country: 'FR', user: { id: 'u2', traits: { plan: 'pro' } }, tags: { team: 'a' } }, cutoff),
        // An event before the visit's start: no live row takes it, the general path moves the start.
        seeded(p, 'early-key', [ev('e1', T + 5 * MINUTE)], {}, cutoff),
        // Past retention: the visit is replaced.
        seeded(p, 'expired-key', [ev('x1', T)], {}, cutoff),
        seeded(p, 'new-key', [ev('n1', T, 'ERROR')], { country: 'US' }, cutoff),
        // Three batches of one visit, reserved together in job order: their counts summed, their facts merged (the
        // first country the visit gets, the last user), the second's new term seen by the third.
        seeded(p, 'twice-key', [ev('t1', T + 2 * MINUTE)], { user: { id: 'u2', traits: null } }, cutoff),
        seeded(p, 'twice-key', [ev('t2', T + 3 * MINUTE, 'ERROR')], { country: 'NO', user: { id: 'u3', traits: { a: 1 } } }, cutoff),
        seeded(p, 'twice-key', [ev('t3', T + 3 * MINUTE, 'ERROR'), ev('t4', T + 4 * MINUTE)], { country: 'DK' }, cutoff),
        // A new visit's three batches: the first opens it, the other two then find it live, together.
        seeded(p, 'new-twice-key', [ev('w1', T)], {}, cutoff),
        seeded(p, 'new-twice-key', [ev('w2', T + MINUTE)], { tags: { k: 'v' } }, cutoff),
        seeded(p, 'new-twice-key', [ev('w3', T + MINUTE, 'ERROR')], {}, cutoff),
        // Events, a batch without, events: the third reserves on its own, after the second wrote the visit.
        seeded(p, 'gap-key', [ev('g1', T + MINUTE)], { tags: { one: '1' } }, cutoff),
        seeded(p, 'gap-key', [], { tags: { two: '2' } }, cutoff),
        seeded(p, 'gap-key', [ev('g2', T + 2 * MINUTE, 'ERROR')], {}, cutoff),
        // A batch without events (an identify) before the visit's next events.
        seeded(p, 'empty-first-key', [], { tags: { x: 'y' } }, cutoff),
        seeded(p, 'empty-first-key', [ev('m1', T + 4 * MINUTE)], {}, cutoff),
        // A partial resend: r2 is stored already.
        seeded(p, 'retry-key', [ev('r2', T), ev('r3', T + MINUTE)], {}, cutoff),
        seeded(p, 'plain-key', [ev('p1', T + MINUTE, 'INPUT')], {}, cutoff),
        // Two cutoffs: the first batch finds the visit live and moves its lastSeenAt, which is still past the second's
        // cutoff, so the second batch replaces the visit (the strictest cutoff decides for the run).
        seeded(p, 'cutoff-key', [ev('c1', T - 2.5 * 86_400_000)], {}, T - 4 * 86_400_000),
        seeded(p, 'cutoff-key', [ev('c2', T)], {}, cutoff),
        // The second batch's event is before the visit's start: the earliest event decides for the run.
        seeded(p, 'late-start-key', [ev('l1', T + 20 * MINUTE)], {}, cutoff),
        seeded(p, 'late-start-key', [ev('l2', T + 5 * MINUTE, 'ERROR')], {}, cutoff),
        // A batch with recording chunks ends its run: the chunks' term is written from the stored row, which the next
        // batch (a new term of its own) must see.
        { ...seeded(p, 'recorded-key', [ev('rec1', T + MINUTE)], {}, cutoff), recording: { chunks: [chunk], maxSessionBytes: 1e9 } },
        seeded(p, 'recorded-key', [ev('rec2', T + 2 * MINUTE, 'SLOW_REQUEST')], {}, cutoff),
      ]
      const grouped = (await createProject(handle.db, { name: 'Grouped', domain: 'grouped.example' })).id
      const oneByOne = (await createProject(handle.db, { name: 'One by one', domain: 'one.example' })).id
      for (const p of [grouped, oneByOne]) for (const j of initial(p)) await writeBatches(handle.db, [j])
      recording = true
      const together = await writeBatches(handle.db, group(grouped)).finally(() => { recording = false })
      const ran = statements.splice(0)
      const alone: typeof together = []
      for (const j of group(oneByOne)) alone.push(...await writeBatches(handle.db, [j]))
      const results = (outcomes: typeof together) => outcomes.map((o) => ('result' in o ? [o.result.accepted, o.result.duplicates] : o.error))
      assert.deepEqual(results(together), results(alone))
      assert.deepEqual(results(together), [[2, 0], [1, 0], [1, 0], [1, 0], [1, 0], [1, 0], [2, 0], [1, 0], [1, 0], [1, 0], [1, 0], [0, 0],
        [1, 0], [0, 0], [1, 0], [1, 1], [1, 0], [1, 0], [1, 0], [1, 0], [1, 0], [1, 0], [1, 0]])
      // One reservation for every visit's first run of batches (those no live row takes included), one for the two
      // batches of new-twice-key after the one that opened it; the batches after one without events (gap-key,
      // empty-first-key), after a run no live row took (cutoff-key, late-start-key) and after recording chunks
      // (recorded-key) reserve on their own.
      assert.equal(ran.filter((q) => /^with v /i.test(q)).length, 2)
      assert.equal(ran.filter((q) => /^update "sessions" set "next_seq" = "next_seq" \+ \S+, "last_seen_at" = case/i.test(q)).length, 5)
      // PostgreSQL: every visit's row locked first, in key order (rows the reservation skips would be locked later).
      if (engine === 'postgres') assert.match(ran.find((q) => /for update/i.test(q)) ?? '', /^select "id" from "sessions" where .* order by "project_id", "session_key" for update$/)

      const state = async (p: string) => {
        const sessions = await handle.db.selectFrom('sessions').selectAll().where('project_id', '=', p).orderBy('session_key').execute()
        const keyOf = new Map(sessions.map((s) => [s.id, s.session_key]))
        const events = await handle.db.selectFrom('events').select(['session_id', 'id', 'seq', 'type']).where('project_id', '=', p).execute()
        const terms = await handle.db.selectFrom('session_terms').select(['term', 'session_id']).where('project_id', '=', p).execute()
        const termDays = await handle.db.selectFrom('term_days').select(['term', 'day', 'sessions']).where('project_id', '=', p)
          .where('sessions', '>', 0).orderBy('term').orderBy('day').execute()
        const days = await handle.db.selectFrom('session_days').select(['day', 'sessions']).where('project_id', '=', p)
          .where('sessions', '>', 0).orderBy('day').execute()
        const issues = await handle.db.selectFrom('issues').select(['title', 'events', 'sessions']).where('project_id', '=', p).execute()
        return {
          issues,
          // num is each visit's place in term_bits, compared there (two projects' visits cannot share one).
          sessions: sessions.map(({ id: _id, project_id: _p, num: _n, terms: t, ...rest }) => ({
            ...rest, terms: t === null ? null : (JSON.parse(t) as string[]).sort(),
          })),
          events: events.map((e) => `${keyOf.get(e.session_id) ?? '?'} ${e.seq} ${e.id} ${e.type}`).sort(),
          terms: terms.map((t) => `${keyOf.get(t.session_id) ?? '?'} ${t.term}`).sort(),
          termDays,
          days,
        }
      }
      const [a, b] = [await state(grouped), await state(oneByOne)]
      assert.deepEqual(a, b)
      for (const p of [grouped, oneByOne]) assert.deepEqual(await storedTermBits(handle.db, p), await storedTerms(handle.db, p), 'term_bits hold session_terms')
      const facts = a.sessions.find((s) => s.session_key === 'facts-key')
      assert.deepEqual([facts?.country, facts?.user_id, facts?.user_traits, facts?.tags, facts?.release, facts?.events_total, facts?.events_errors],
        ['DE', 'u2', '{"plan":"pro"}', '{"team":"a"}', 'r1', 3, 1])
      assert.deepEqual(a.events.filter((e) => e.startsWith('twice-key')), ['twice-key 0 t0 CLICK', 'twice-key 1 t1 CLICK', 'twice-key 2 t2 ERROR',
        'twice-key 3 t3 ERROR', 'twice-key 4 t4 CLICK'], 'each batch after the one before it')
      const twice = a.sessions.find((s) => s.session_key === 'twice-key')
      assert.deepEqual([twice?.country, twice?.user_id, twice?.user_traits, twice?.events_total, twice?.events_errors, twice?.next_seq], ['NO', 'u3', '{"a":1}', 5, 2, 5])
    })

    it('stores every value of a group\'s events as sent (on PostgreSQL one INSERT of a column\'s values per parameter)', async () => {
      // What an array literal must escape or could misread: braces, commas, quotes, backslashes, the word NULL, empty text.
      const texts = ['{a,b}', '"quoted", \\back\\slash\\', 'NULL', '', ' padded ', '\u2028é😀\ufffd</script>', Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('')]
      const sent = texts.map((t, i) => eventRecord(`arr-${i}-${t}`, now + i, i % 2 ? 'HTTP_ERROR' : 'ERROR', {
        url: t, method: t === '' ? null : 'POST', message: t, stack: i % 3 ? null : t, statusCode: i % 2 ? 500 + i : null,
        durationMs: [0.1 + 0.2, 1e21, 5e-7, 0, 12, null, 1 / 3][i] ?? null, reqBody: t, resBody: null, fingerprint: t,
      }))
      // Two live visits: their batches' events go into the group's INSERT.
      await writeBatches(handle.db, [job('arrays-1-key', [eventRecord('arr-open-1', now)]), job('arrays-2-key', [eventRecord('arr-open-2', now)])])
      recording = true
      const outcomes = await writeBatches(handle.db, [job('arrays-1-key', sent.slice(0, 4)), job('arrays-2-key', sent.slice(4))])
        .finally(() => { recording = false })
      const inserts = statements.splice(0).filter((q) => /^insert into "events"/i.test(q))
      assert.deepEqual(outcomes.map((o) => 'result' in o && o.result.accepted), [4, 3])
      if (engine === 'postgres') assert.deepEqual(inserts.map((q) => q.includes('unnest(')), [true], 'one INSERT, of arrays')
      const stored = await handle.db.selectFrom('events').select(['id', 'url', 'method', 'message', 'stack', 'status_code', 'duration_ms', 'req_body',
        'res_body', 'fingerprint', 'type', 'created_at']).where('project_id', '=', projectId).where('id', 'like', 'arr-%').where('id', 'not like', 'arr-open-%').orderBy('created_at').execute()
      assert.deepEqual(stored, sent.map((e) => ({ id: e.id, url: e.url, method: e.method, message: e.message, stack: e.stack, status_code: e.statusCode,
        duration_ms: e.durationMs, req_body: e.reqBody, res_body: e.resBody, fingerprint: e.fingerprint, type: e.type, created_at: e.createdAt })))
    })

    it('answers 503 when its queue is full instead of growing without bound', async () => {
      const writer = createWriter(handle.db, { maxQueued: 3 })
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => writer.submit(job(`full-${i}-key`, [eventRecord('a', now)]))))
      await writer.close()
      const refused = outcomes.filter((o) => o.status === 'rejected')
      assert.equal(refused.length, 3)
      assert.ok(refused.every((o) => o.reason instanceof AppError && o.reason.statusCode === 503))
    })

    it('bounds each project\'s queue: a flood is refused 503 beyond its own bound while another project still queues', async () => {
      const other = (await createProject(handle.db, { name: 'Other', domain: 'o.example' })).id
      const writer = createWriter(handle.db, { maxQueued: 10, maxQueuedPerProject: 4 })
      const flood = Array.from({ length: 8 }, (_, i) => writer.submit(job(`bound-${i}-key`, [eventRecord('a', now)])))
      const theirs = Array.from({ length: 3 }, (_, i) => writer.submit(writeJob(other, `bound-other-${i}-key`, [eventRecord('a', now)], now)))
      const [floodOutcomes, theirOutcomes] = await Promise.all([Promise.allSettled(flood), Promise.allSettled(theirs)])
      await writer.close()
      assert.deepEqual(floodOutcomes.map((o) => o.status), ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected', 'rejected'])
      const refusal = floodOutcomes[7]
      assert.ok(refusal?.status === 'rejected' && refusal.reason instanceof AppError && refusal.reason.statusCode === 503)
      assert.match(refusal.reason.message, new RegExp(`Project ${projectId} has 4 batches waiting`))
      assert.ok(theirOutcomes.every((o) => o.status === 'fulfilled'), 'the other project is not refused for the flood')
    })

    it('serves waiting projects in turn: another project\'s batch is committed in the next group, not behind a flood', async () => {
      const other = (await createProject(handle.db, { name: 'Turn', domain: 't.example' })).id
      // Groups of at most 2 batches: the flood takes 10 groups, one after the other.
      const writer = createWriter(handle.db, { maxGroupJobs: 2 })
      const order: string[] = []
      const flood = Array.from({ length: 20 }, (_, i) =>
        writer.submit(job(`turn-${i}-key`, [eventRecord('a', now)])).then(() => { order.push(`flood-${i}`) }))
      const theirs = writer.submit(writeJob(other, 'turn-other-key', [eventRecord('a', now)], now)).then(() => { order.push('other') })
      await Promise.all([...flood, theirs])
      await writer.close()
      assert.ok(order.indexOf('other') <= 2, `the other project's batch shares the first group: ${order.join(' ')}`)
    })

    it('commits every accepted batch before close resolves, and refuses new ones after', async () => {
      const writer = createWriter(handle.db)
      const pending = Array.from({ length: 5 }, (_, i) => writer.submit(job(`close-${i}-key`, [eventRecord('a', now)])))
      await writer.close()
      assert.equal((await Promise.all(pending)).length, 5)
      await assert.rejects(writer.submit(job('late-key', [eventRecord('a', now)])), (e: unknown) => e instanceof AppError && e.statusCode === 503)
    })
  })
}
