import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { fillTermBits } from '../../../src/db/migrations/0013_term_bits.ts'
import { BITS_PER_CHUNK } from '../../../src/db/bits.ts'
import { createProject } from '../../../src/projects/service.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { deleteExpired } from '../../../src/visits/delete.ts'
import { countFiltered, listSessions, searchSessions } from '../../../src/search/list.ts'
import { term } from '../../../src/search/indexing.ts'
import { writeBatches } from '../../../src/visits/write.ts'
import { SEARCH_TEXT_MATCH_LIMIT, SEARCH_TEXT_PROBE_MAX } from '../../../src/search/limits.ts'
import { AppError } from '../../../src/errors.ts'
import { collectIds, idRows } from '../../../src/db/sql.ts'
import { openTestDatabase, storedTermBits, storedTerms } from '../../helpers/databases.ts'
import { eventRecord, writeJob } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'

for (const engine of testEngines()) {
  describe(`visit search store [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    let projectId: string
    const now = Date.UTC(2026, 10, 21, 15, 0, 0)
    const cutoff = now - 30 * DAY_MS
    /** Every statement run, as the engine gets it. */
    const statements: string[] = []
    const rows = async (table: 'session_terms' | 'session_texts') =>
      Number((await handle.db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).where('project_id', '=', projectId)
        .executeTakeFirstOrThrow()).n)

    /** term_days holds, per term and start day, exactly the visits session_terms has. */
    const countersExact = async () => {
      const counted = await handle.db.selectFrom('term_days').select(['term', 'day', 'sessions']).where('project_id', '=', projectId)
        .orderBy('term').orderBy('day').execute()
      const actual = await handle.db.selectFrom('session_terms as t')
        .innerJoin('sessions as s', (j) => j.onRef('s.project_id', '=', 't.project_id').onRef('s.id', '=', 't.session_id'))
        .select(['t.term', 's.start_day as day', (eb) => eb.fn.countAll<number | string>().as('sessions')])
        .where('t.project_id', '=', projectId).groupBy(['t.term', 's.start_day']).orderBy('t.term').orderBy('s.start_day').execute()
      assert.deepEqual(counted.map((r) => [r.term, r.day, r.sessions]), actual.map((r) => [r.term, r.day, Number(r.sessions)]))
      assert.deepEqual(await storedTermBits(handle.db, projectId), await storedTerms(handle.db, projectId), 'term_bits hold session_terms')
    }

    before(async () => {
      handle = await openTestDatabase(engine, { onQuery: (q) => { statements.push(q.sql) } })
      projectId = (await createProject(handle.db, { name: 'Search', domain: 'search.example' })).id
    })
    after(() => handle.close())

    it('writes a visit\'s terms once, however many batches repeat them, and lists each on the session row', async () => {
      const events = (n: number) => [eventRecord(`a${n}`, now - 1000, 'HTTP_ERROR', { statusCode: 503, url: 'https://s.example/api' }),
        eventRecord(`b${n}`, now - 900, 'CLICK', { message: 'button.buy' })]
      for (let n = 0; n < 3; n++) {
        const job = writeJob(projectId, 'terms-1', events(n), now)
        await writeBatches(handle.db, [{ ...job, seed: { ...job.seed, tags: { plan: 'pro' } } }])
      }
      const stored = await handle.db.selectFrom('session_terms').select('term').where('project_id', '=', projectId).orderBy('term').execute()
      assert.deepEqual(stored.map((r) => r.term), [term.errors, term.tag('plan', 'pro'), term.status('503'), term.status('5xx'), term.type('CLICK'),
        term.type('HTTP_ERROR')].sort())
      await countersExact()
      const row = await handle.db.selectFrom('sessions').select('terms').where('project_id', '=', projectId).executeTakeFirstOrThrow()
      assert.deepEqual((JSON.parse(row.terms ?? '[]') as string[]).sort(), stored.map((r) => r.term))
      // The same text three times is indexed once.
      assert.equal(await rows('session_texts'), 1)
      const range = { cutoff }
      assert.equal(await countFiltered(handle.db, projectId, range, { q: ['BUTTON.buy'] }), 1)
      assert.equal((await listSessions(handle.db, projectId, range, { limit: 10, offset: 0 }, { terms: [term.status('5xx')] }, { drive: 'filter', driver: { term: term.status('5xx') } })).length, 1)
    })

    it('counts several terms from their bitmaps: this project\'s visits only, less those past retention, across a chunk\'s end', async () => {
      const bits = (await createProject(handle.db, { name: 'Bits', domain: 'bits.example' })).id
      const other = (await createProject(handle.db, { name: 'Bits too', domain: 'bits2.example' })).id
      // The next visits are numbered from BITS_PER_CHUNK - 2 on: two in the first chunk, the rest in the second.
      if (engine === 'postgres') await sql`select setval('session_nums', ${BITS_PER_CHUNK - 3})`.execute(handle.db)
      else {
        // SQLite numbers past the largest: the last visit moves there, and the bitmaps are filled again to follow it.
        await sql`update sessions set num = ${BITS_PER_CHUNK - 3} where num = (select max(num) from sessions)`.execute(handle.db)
        await fillTermBits(engine, handle.db as Kysely<unknown>)
      }
      const visit = async (project: string, key: string, country: string, type: string, at = now - 1000) => {
        const job = writeJob(project, key, [eventRecord(`${key}-e`, at, type)], now, now - 90 * DAY_MS)
        const [outcome] = await writeBatches(handle.db, [{ ...job, seed: { ...job.seed, country, tags: { a: '1', b: '2' } } }])
        assert.ok(outcome && 'result' in outcome, 'stored')
      }
      await visit(bits, 'b-de-error', 'DE', 'ERROR')
      await visit(bits, 'b-de-error-expired', 'DE', 'ERROR', now - 40 * DAY_MS)
      await visit(bits, 'b-fr-error', 'FR', 'ERROR')
      await visit(bits, 'b-de-click', 'DE', 'CLICK')
      await visit(other, 'o-de-error', 'DE', 'ERROR')
      const nums = (await handle.db.selectFrom('sessions').select('num').where('project_id', '=', bits).execute()).map((r) => r.num)
      assert.ok(nums.some((n) => n < BITS_PER_CHUNK) && nums.some((n) => n >= BITS_PER_CHUNK), `numbers on both sides of a chunk's end: ${nums.join(', ')}`)
      for (const p of [bits, other]) assert.deepEqual(await storedTermBits(handle.db, p), await storedTerms(handle.db, p))
      const count = (terms: string[]) => countFiltered(handle.db, bits, { cutoff }, { terms })
      assert.equal(await count([term.errors, term.country('DE')]), 1, 'the expired visit and the other project\'s are not counted')
      assert.equal(await count([term.errors, term.country('DE'), term.errors]), 1, 'a term given twice')
      assert.equal(await count([term.errors, term.tag('a', '1'), term.tag('b', '2')]), 2)
      assert.equal(await count([term.errors, term.country('SE')]), 0, 'a term no visit has')
      // More terms than SQLite joins tables (64): tag.KEY= parameters are not capped.
      const many = Array.from({ length: 70 }, (_, i) => term.tag(`k${i}`, 'v'))
      assert.equal(await count([term.errors, ...many]), 0)
      assert.equal((await searchSessions(handle.db, bits, { cutoff }, { limit: 10, offset: 0 }, { terms: [term.country('DE'), term.errors] })).rows.length, 1)
    })

    it('a rolled-back batch leaves no terms or text, and its text is indexed when it comes again', async () => {
      // Two batches of one group: the second fails alone (a sessionKey conflict on import ids), so its savepoint rolls back.
      const good = writeJob(projectId, 'texts-ok', [eventRecord('x', now - 500, 'CLICK', { message: 'unique-alpha' })], now)
      const bad = { ...writeJob(projectId, 'terms-1', [eventRecord('y', now - 400, 'USER_REPORT', { message: 'unique-beta' })], now) }
      const outcomes = await writeBatches(handle.db, [good, { ...bad, seed: { ...bad.seed, id: 'not-the-owner' } }])
      assert.ok('error' in (outcomes[1] ?? {}), 'the second batch failed')
      // The group's texts are written together before its commit: the stored batch's, not the rolled-back one's.
      assert.equal(await countFiltered(handle.db, projectId, { cutoff }, { q: ['unique-alpha'] }), 1)
      assert.equal(await countFiltered(handle.db, projectId, { cutoff }, { q: ['unique-beta'] }), 0)
      assert.equal(await countFiltered(handle.db, projectId, { cutoff }, { terms: [term.type('USER_REPORT')] }), 0)
      await writeBatches(handle.db, [bad])
      assert.equal(await countFiltered(handle.db, projectId, { cutoff }, { q: ['unique-beta'] }), 1)
      assert.equal(await countFiltered(handle.db, projectId, { cutoff }, { terms: [term.type('USER_REPORT')] }), 1)
      await countersExact()
    })

    it('a visit whose first batches carry no events (recording chunks, an identify) keeps the text of every batch', async () => {
      // Such a batch takes no seq, so the next batch starts at the same one: each text row must still be stored.
      const own = (await createProject(handle.db, { name: 'Eventless', domain: 'eventless.example' })).id
      const chunk = (id: string) => ({ id, started_at: now - 900, ended_at: now - 800, events: 2, full_snapshot: 1, bytes: 10, data: Buffer.from('x'), dropped: null })
      const visit = (user: string, events: ReturnType<typeof eventRecord>[], chunks: ReturnType<typeof chunk>[]) => {
        const job = writeJob(own, 'eventless-first', events, now)
        return { ...job, seed: { ...job.seed, user: { id: user, traits: null } }, ...(chunks.length > 0 && { recording: { chunks, maxSessionBytes: 1e9 } }) }
      }
      // Two event-less batches in one group, with different users, then one in a group of its own.
      await writeBatches(handle.db, [visit('first-user-kappa', [], [chunk('c1')]), visit('second-user-lambda', [], [chunk('c2')])])
      await writeBatches(handle.db, [visit('third-user-mu', [], [chunk('c3')])])
      // Then the events, whose first seq is the one those batches saw.
      await writeBatches(handle.db, [visit('third-user-mu', [eventRecord('r1', now - 500, 'USER_REPORT', { message: 'report-text-gamma' })], [])])
      for (const word of ['first-user-kappa', 'second-user-lambda', 'third-user-mu', 'report-text-gamma']) {
        assert.equal(await countFiltered(handle.db, own, { cutoff }, { q: [word] }), 1, word)
      }
    })

    it('a late event that moves a visit\'s start to an earlier day moves its terms\' day counts with it', async () => {
      await writeBatches(handle.db, [writeJob(projectId, 'moving', [eventRecord('m1', now - 1000, 'ERROR', { message: 'late' })], now)])
      await writeBatches(handle.db, [writeJob(projectId, 'moving', [eventRecord('m0', now - 3 * DAY_MS, 'CLICK', { message: 'early' })], now)])
      await countersExact()
      const day = Math.floor((now - 3 * DAY_MS) / DAY_MS)
      const errorsThatDay = await handle.db.selectFrom('term_days').select('sessions').where('project_id', '=', projectId)
        .where('term', '=', term.errors).where('day', '=', day).executeTakeFirst()
      assert.equal(Number(errorsThatDay?.sessions), 1)
    })

    it('a recording gives the visit has:recording once', async () => {
      const chunk = { id: 'c1', started_at: now - 100, ended_at: now - 50, events: 2, full_snapshot: 1, bytes: 10, data: Buffer.from('x'), dropped: null }
      const job = writeJob(projectId, 'recorded', [], now)
      await writeBatches(handle.db, [{ ...job, seed: { ...job.seed, lastSeenAt: now - 50, startedAt: now - 100 }, recording: { chunks: [chunk], maxSessionBytes: 1000 } }])
      await writeBatches(handle.db, [{ ...job, recording: { chunks: [{ ...chunk, id: 'c2' }], maxSessionBytes: 1000 } }])
      assert.equal(await countFiltered(handle.db, projectId, { cutoff }, { terms: [term.recording] }), 1)
      await countersExact()
    })

    it('retention deletes a visit\'s terms and text with it', async () => {
      const old = writeJob(projectId, 'old-visit', [eventRecord('o', now - 40 * DAY_MS, 'ERROR', { message: 'ancient failure' })], now)
      await writeBatches(handle.db, [old])
      const termsBefore = await rows('session_terms')
      const textsBefore = await rows('session_texts')
      assert.equal(await deleteExpired(handle.db, projectId, cutoff, 100), 1)
      assert.equal(await rows('session_terms'), termsBefore - 2, 'its terms (t:ERROR, has:errors) are gone')
      await countersExact()
      assert.equal(await rows('session_texts'), textsBefore - 1)
      assert.equal(await countFiltered(handle.db, projectId, { cutoff: 0 }, { q: ['ancient'] }), 0)
    })
  
    it('reads text filters from the index once, as the ids they match, which every plan of the page agrees on', async () => {
      const other = (await createProject(handle.db, { name: 'Texts', domain: 'texts.example' })).id
      const visit = (key: string, at: number, type: string, message: string) => writeJob(other, key, [eventRecord(`${key}-e`, at, type, { message })], now)
      await writeBatches(handle.db, [
        visit('both-words', now - 4000, 'ERROR', 'alpha-word beta-word'), visit('alpha-only', now - 3000, 'ERROR', 'alpha-word'),
        visit('beta-only', now - 2000, 'CLICK', 'beta-word'), visit('alpha-click', now - 1000, 'CLICK', 'ALPHA-WORD again'),
      ])
      const page = { limit: 2, offset: 0 }
      const keys = (rows: readonly { session_key: string }[]) => rows.map((r) => r.session_key)
      statements.length = 0
      const alpha = await searchSessions(handle.db, other, { cutoff }, page, { q: ['alpha-word'] })
      assert.equal(alpha.total, 3)
      assert.equal(statements.filter((text) => text.includes('session_texts')).length, 1, 'the index read once for the count and the page')
      assert.deepEqual(keys(alpha.rows), ['alpha-click', 'alpha-only'], 'most recent first, a page of two')
      const next = await searchSessions(handle.db, other, { cutoff }, { ...page, after: [alpha.rows[1]?.last_seen_at ?? 0, alpha.rows[1]?.id ?? ''] },
        { q: ['alpha-word'] })
      assert.deepEqual(keys(next.rows), ['both-words'], 'after a cursor, from the same matches')
      const both = await searchSessions(handle.db, other, { cutoff }, page, { q: ['alpha-word', 'beta-word'] })
      assert.deepEqual([both.total, keys(both.rows)], [1, ['both-words']], 'two words: the visits that hold both')
      const withErrors = await searchSessions(handle.db, other, { cutoff }, page, { q: ['alpha-word'], terms: [term.errors] })
      assert.deepEqual([withErrors.total, keys(withErrors.rows)], [2, ['alpha-only', 'both-words']], 'a word read per visit of a rare term')
      // The same filter as ids, paged from the ids (each passing visit read by its id) and along the list order: the
      // same rows, after a cursor and within a range too.
      const ids = alpha.rows.map((r) => r.id).concat(next.rows.map((r) => r.id))
      const filters = { ids, terms: [term.errors] }
      const plans = [{ drive: 'filter', driver: { ids } }, { drive: 'filter', driver: { term: term.errors } }, { drive: 'order' }, { drive: 'order', sparse: true },
        { drive: 'filter', sparse: true }] as const
      for (const plan of plans) {
        const first = await listSessions(handle.db, other, { cutoff }, page, filters, plan)
        const name = `${plan.drive}${'sparse' in plan ? ', sparse' : ''}`
        assert.deepEqual(keys(first), ['alpha-only', 'both-words'], name)
        const cursor = first[0]
        assert.ok(cursor)
        assert.deepEqual(keys(await listSessions(handle.db, other, { cutoff }, { ...page, after: [cursor.last_seen_at, cursor.id] }, filters, plan)),
          ['both-words'], `${name}, after a cursor`)
        const started = await listSessions(handle.db, other, { cutoff }, { limit: 10, offset: 0 }, {}, { drive: 'order' })
        const both = started.find((r) => r.session_key === 'both-words')
        assert.ok(both)
        assert.deepEqual(keys(await listSessions(handle.db, other, { cutoff, from: both.started_at, to: both.started_at + 1 }, page, filters, plan)),
          ['both-words'], `${name}, within a from/to range`)
      }
      statements.length = 0
      assert.equal(await countFiltered(handle.db, other, { cutoff }, { q: ['gamma-word'] }), 0)
      assert.equal(statements.length, 1, 'no match: nothing read past the index')
    })

    it('from the text\'s matches, the count lists the visits that pass the other filters, and the page reads only those', async () => {
      const other = (await createProject(handle.db, { name: 'Narrow', domain: 'narrow.example' })).id
      const visit = (key: string, at: number, type: string, message: string) => writeJob(other, key, [eventRecord(`${key}-e`, at, type, { message })], now, now - 90 * DAY_MS)
      await writeBatches(handle.db, [
        visit('delta-error', now - 4000, 'ERROR', 'delta-word'), visit('delta-click', now - 3000, 'CLICK', 'delta-word'),
        visit('delta-error-2', now - 2000, 'ERROR', 'delta-word again'), visit('epsilon-error', now - 1000, 'ERROR', 'epsilon-word'),
        visit('delta-error-expired', now - 40 * DAY_MS, 'ERROR', 'delta-word'),
      ])
      // has:errors as broad as the benchmark's (more visits than SEARCH_TEXT_PROBE_MAX): the text is then read from its
      // index, and its matches lead.
      await handle.db.insertInto('term_days').values({ project_id: other, term: term.errors, day: 0, sessions: SEARCH_TEXT_PROBE_MAX + 1 }).execute()
      const keys = (rows: readonly { session_key: string }[]) => rows.map((r) => r.session_key)
      statements.length = 0
      const first = await searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 0 }, { q: ['delta-word'], terms: [term.errors] })
      assert.deepEqual([first.total, keys(first.rows)], [2, ['delta-error-2']], 'the click and the visit past retention are not counted')
      assert.equal(statements.filter((text) => text.includes('session_texts')).length, 1, 'the text index read once')
      assert.equal(statements.filter((text) => /json_agg|json_group_array/.test(text) && text.includes('session_terms')).length, 1,
        'the term probed on the matches once, by the statement that counts and lists them')
      assert.ok(!statements.at(-1)?.includes('session_terms'), `the page probes no term: ${statements.at(-1) ?? ''}`)
      const cursor = first.rows[0]
      assert.ok(cursor)
      const next = await searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 0, after: [cursor.last_seen_at, cursor.id] },
        { q: ['delta-word'], terms: [term.errors] })
      assert.deepEqual([next.total, keys(next.rows)], [2, ['delta-error']], 'after a cursor')
      assert.deepEqual(keys((await searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 1 }, { q: ['delta-word'], terms: [term.errors] })).rows),
        ['delta-error'], 'at an offset')
      assert.deepEqual(keys((await searchSessions(handle.db, other, { cutoff }, { limit: 10, offset: 0 }, { q: ['delta-word'], terms: [term.errors] })).rows),
        ['delta-error-2', 'delta-error'], 'the visit past retention is not on the page')
      assert.equal((await searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 0 }, { q: ['delta-word'], terms: [term.errors, term.country('SE')] })).total, 0,
        'none pass')
      // The text alone: its matches are counted as they are listed, and the one past retention is found among the
      // project's visits past retention, with no statement given the matches; with more than a sweep's worth past
      // retention, by probing the matches.
      statements.length = 0
      const alone = await searchSessions(handle.db, other, { cutoff }, { limit: 10, offset: 0 }, { q: ['delta-word'] })
      assert.deepEqual([alone.total, keys(alone.rows)], [3, ['delta-error-2', 'delta-click', 'delta-error']])
      assert.deepEqual(statements.filter((text) => /count\(\*\)/.test(text) && /json_each|unnest|any\(/.test(text)), [], 'no count given the matches')
      await writeBatches(handle.db, Array.from({ length: 1001 }, (_, i) => visit(`delta-old-${String(i)}`, now - 50 * DAY_MS + i, 'CLICK', 'delta-word')))
      assert.equal((await searchSessions(handle.db, other, { cutoff }, { limit: 10, offset: 0 }, { q: ['delta-word'] })).total, 3, 'past a sweep\'s worth')
    })

    it('a walk for a rare filter probes a list of its visits made once on PostgreSQL, and its index per visit on SQLite, with the same pages', async () => {
      const other = (await createProject(handle.db, { name: 'Rare', domain: 'rare.example' })).id
      const visit = (key: string, at: number, type: string) => writeJob(other, key, [eventRecord(`${key}-e`, at, type)], now, now - 90 * DAY_MS)
      // 40 visits, 3 live ones with a USER_REPORT and one past retention: a first page of one walks ~13 entries of the
      // list order, fewer than reading the 3 rows by id costs, and listing the report's 4 visits costs less again.
      await writeBatches(handle.db, [
        ...Array.from({ length: 37 }, (_, i) => visit(`click-${String(i)}`, now - 10_000 + i, 'CLICK')),
        visit('report-old', now - 9000, 'USER_REPORT'), visit('report-mid', now - 5000, 'USER_REPORT'), visit('report-new', now - 1000, 'USER_REPORT'),
        visit('report-expired', now - 40 * DAY_MS, 'USER_REPORT'),
      ])
      const keys = (rows: readonly { session_key: string }[]) => rows.map((r) => r.session_key)
      const filters = { terms: [term.type('USER_REPORT')] }
      statements.length = 0
      const first = await searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 0 }, filters)
      assert.deepEqual([first.total, keys(first.rows)], [3, ['report-new']])
      const listed = statements.filter((text) => /json_agg|json_group_array/.test(text) && text.includes('session_terms'))
      const page = statements.at(-1) ?? ''
      if (engine === 'postgres') {
        assert.equal(listed.length, 1, 'the term\'s visits listed once')
        assert.ok(page.includes('in (select unnest(') && !page.includes('session_terms'), `the page probes the list, not the term's index: ${page}`)
      } else {
        assert.equal(listed.length, 0, 'nothing listed')
        assert.ok(page.includes('session_terms'), `the page probes the term's index: ${page}`)
      }
      const cursor = first.rows[0]
      assert.ok(cursor)
      assert.deepEqual(keys((await searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 0, after: [cursor.last_seen_at, cursor.id] }, filters)).rows),
        ['report-mid'], 'after a cursor')
      assert.deepEqual(keys((await searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 2 }, filters)).rows), ['report-old'], 'at an offset')
      assert.deepEqual(keys((await searchSessions(handle.db, other, { cutoff }, { limit: 10, offset: 0 }, filters)).rows),
        ['report-new', 'report-mid', 'report-old'], 'the visit past retention is not on the page')
      // An error in one report: has:errors (1 visit) leads, listed, and the report is probed on the entries that pass.
      await writeBatches(handle.db, [writeJob(other, 'report-mid', [eventRecord('report-mid-error', now - 4000, 'ERROR')], now, now - 90 * DAY_MS)])
      const withErrors = await searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 0 }, { terms: [...filters.terms, term.errors] })
      assert.deepEqual([withErrors.total, keys(withErrors.rows)], [1, ['report-mid']], 'with another filter, the visits that pass both')
      if (engine === 'postgres') assert.ok(statements.at(-1)?.includes('in (select unnest('), 'the errors listed')
      // With ids (a text's matches) broader than the term, the term leads and its list is probed: the visits in both.
      const all = await listSessions(handle.db, other, { cutoff }, { limit: 50, offset: 0 }, {}, { drive: 'order' })
      const ids = all.filter((r) => r.session_key.startsWith('click-') || r.session_key === 'report-old').map((r) => r.id)
      const both = await searchSessions(handle.db, other, { cutoff }, { limit: 1, offset: 0 }, { ...filters, ids })
      assert.deepEqual([both.total, keys(both.rows)], [1, ['report-old']], 'the term\'s list within the ids')
    })

    it('refuses a text search too broad to count exactly, unless another filter leaves few visits to read one by one', async () => {
      const other = (await createProject(handle.db, { name: 'Broad', domain: 'broad.example' })).id
      const job = writeJob(other, 'zed-visit', [eventRecord('z', now - 100, 'CLICK', { message: 'common-word here' })], now)
      await writeBatches(handle.db, [{ ...job, seed: { ...job.seed, user: { id: 'zed', traits: null } } }])
      // More rows of text holding the word than SEARCH_TEXT_MATCH_LIMIT (as if from that many other visits).
      for (let i = 0; i <= SEARCH_TEXT_MATCH_LIMIT; i += 1000) {
        await handle.db.insertInto('session_texts').values(Array.from({ length: 1000 }, (_, j) => ({
          project_id: other, session_id: `ghost-${i + j}`, part: 0, page: '', body: 'a common-word',
        }))).execute()
      }
      await assert.rejects(countFiltered(handle.db, other, { cutoff }, { q: ['common-word'] }),
        (e: unknown) => e instanceof AppError && e.statusCode === 400 && /q "common-word" occurs in more than/.test(e.message))
      assert.equal(await countFiltered(handle.db, other, { cutoff }, { user: 'zed', q: ['COMMON-word'] }), 1, 'read per visit for one user')
      assert.equal(await countFiltered(handle.db, other, { cutoff }, { user: 'zed', q: ['absent-word'] }), 0)
      assert.equal(await countFiltered(handle.db, projectId, { cutoff }, { q: ['common-word'] }), 0, 'another project\'s text is not counted')
    })

    it('lists the ids a query finds only up to a bound, and beyond it only counts them (a refused text search sends none)', async () => {
      const listed = ['id-a', 'id-b', 'id-c']
      assert.deepEqual(await collectIds(handle.db, idRows(handle.db, listed)), { rows: 3, ids: listed })
      assert.deepEqual(await collectIds(handle.db, idRows(handle.db, listed), 3), { rows: 3, ids: listed }, 'at the bound: listed')
      assert.deepEqual(await collectIds(handle.db, idRows(handle.db, listed), 2), { rows: 3, ids: null }, 'past it: counted, not listed')
      assert.deepEqual(await collectIds(handle.db, idRows(handle.db, []), 0), { rows: 0, ids: [] }, 'none found')
    })
  })
}
