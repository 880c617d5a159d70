import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fastJson from 'fast-json-stringify'
import { sql } from 'kysely'
import { createProject } from '../../../src/projects/service.ts'
import { CountersSchema, EventSchema, type ResolvedFrame, ResolvedFrameSchema, SessionSchema } from '../../../src/contract/session.ts'
import { eventJson, sessionJson, toEventTexts, toEventViews, toSessionView } from '../../../src/sessions/views.ts'
import type { SourceMapResolver } from '../../../src/sourcemaps/resolve.ts'
import { type EventTable, FACT_COLUMNS } from '../../../src/visits/tables.ts'
import { factColumns, noFacts } from '../../../src/visits/facts.ts'
import { type VisitorFacts } from '../../../src/contract/visitor.ts'
import { eventsAfter, listEvents } from '../../../src/visits/read.ts'
import { listSessions } from '../../../src/search/list.ts'
import { searchSessions } from '../../../src/search/search.ts'
import { keepListJson } from '../../../src/visits/list-json.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'

/** The response schema's own serializer, compiled as Fastify compiles it for the list route. */
const serialize = fastJson(SessionSchema, { schema: { EventCounters: CountersSchema } })
/** The same for an event of getSession. */
const serializeEvent = fastJson(EventSchema, { schema: { ResolvedFrame: ResolvedFrameSchema } })

/** Every character JSON escapes or might: controls (NUL aside: no stored text holds it), quotes, backslash, separators, astral. */
const hostile = `${Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('')}"\\/\u007f\u0080\u2028\u2029é😀\ufffd</script>`

const visits: { id: string; startedAt: number; lastSeenAt: number; facts: VisitorFacts; counters: [number, number, number] }[] = [
  { id: 'plain', startedAt: 1_700_000_000_000, lastSeenAt: 1_700_000_000_001, facts: noFacts(), counters: [0, 0, 0] },
  {
    id: `hostile-${hostile}`, startedAt: 0, lastSeenAt: 999, counters: [2 ** 31 - 1, 3, 12],
    facts: {
      ip: '2001:db8::1', country: 'DE', userAgent: hostile, utm: { utm_source: hostile, gclid: 'x' }, entryUrl: `https://shop.example/?q=${hostile}`,
      browser: 'Chrome', os: 'macOS', user: { id: hostile, traits: { plan: 'pro', seats: 12, ratio: 1.5, big: 1e21, tiny: 5e-7, neg: -3, on: true, off: false, text: hostile } },
      tags: { 'a.b': hostile, '9': 'digit key' }, release: hostile, environment: 'production',
    },
  },
  {
    id: 'user-without-traits', startedAt: 951_782_400_005, lastSeenAt: 253_402_300_799_999, counters: [1, 1, 0],
    facts: { ...noFacts(), user: { id: 'u-1', traits: null }, tags: {}, utm: {} },
  },
  { id: 'day-edge', startedAt: 1_767_225_599_999, lastSeenAt: 1_767_225_600_000, facts: { ...noFacts(), country: 'US' }, counters: [5, 0, 5] },
  // Before 1970 an instant is negative, and SQL's division and remainder truncate toward zero (import takes years 0000-9999).
  { id: 'before-1970', startedAt: -315_619_199_877, lastSeenAt: -1, facts: noFacts(), counters: [1, 0, 0] },
  { id: 'year-0000', startedAt: -62_167_219_200_000 + 1, lastSeenAt: -62_167_219_200_000 + 86_399_999, facts: noFacts(), counters: [1, 0, 0] },
  // Past 2^53 microseconds (about the year 4254) a double no longer holds every millisecond's count of them.
  { id: 'late', startedAt: 150_000_000_000_001, lastSeenAt: 253_402_300_799_997, facts: noFacts(), counters: [1, 0, 0] },
]

/** A retention cutoff that keeps every visit above, the ones last seen before 1970 too. */
const EVER = Number.MIN_SAFE_INTEGER

/** Events of one visit, each field at an edge of how the statement writes it. */
const events: (Omit<EventTable, 'project_id' | 'session_id' | 'seq'>)[] = [
  {
    id: `e-${hostile}`, type: 'HTTP_ERROR', created_at: 1_700_000_000_123, url: `https://shop.example/${hostile}`, method: 'POST', message: hostile,
    stack: null, status_code: 502, duration_ms: 12, req_body: `{"card":"${hostile}"}`, res_body: hostile, fingerprint: hostile, issue_id: `iss-${hostile}`,
  },
  { id: 'no-url', type: 'CLICK', created_at: 0, url: null, method: null, message: null, stack: null, status_code: null, duration_ms: null, req_body: null, res_body: null, fingerprint: null, issue_id: null },
  ...[0.1 + 0.2, 1 / 3, 12.5, 5e-7, 0.000001, 2_678_400_000, 2_678_399_999.999, 0, 2 ** 53 + 2].map((duration, i) => ({
    id: `slow-${i}`, type: 'SLOW_REQUEST', created_at: 253_402_300_799_999 - i, url: 'https://cdn.example/a.js', method: null, message: 'script', stack: null,
    status_code: null, duration_ms: duration, req_body: null, res_body: null, fingerprint: null, issue_id: null,
  })),
  { id: 'old', type: 'ERROR', created_at: -315_619_199_877, url: 'https://shop.example/', method: null, message: 'TypeError: x', stack: `at a (${hostile})`, status_code: null, duration_ms: null, req_body: null, res_body: null, fingerprint: null, issue_id: 'iss-1' },
  { id: 'same-stack', type: 'ERROR', created_at: -1, url: null, method: 'GET', message: 'TypeError: x', stack: `at a (${hostile})`, status_code: null, duration_ms: 0.5, req_body: null, res_body: null, fingerprint: null, issue_id: 'iss-1' },
  { id: 'unmapped', type: 'ERROR', created_at: 5, url: null, method: null, message: 'x', stack: 'no frames', status_code: null, duration_ms: null, req_body: null, res_body: null, fingerprint: null, issue_id: null },
]

/** Frames as a resolver returns them: context on two frames (a visit keeps it on the top one only), hostile text; none for 'no frames'. */
const frames: ResolvedFrame[] = [
  { function: hostile, file: 'src/a.ts', line: 1, column: 2, mapped: true, inApp: true, context: { pre: [hostile, ''], line: `  ${hostile}`, post: [] } },
  { function: null, file: null, line: null, column: null, mapped: false, inApp: false, context: null },
  { function: 'b', file: 'src/b.ts', line: 3, column: 4, mapped: true, inApp: true, context: { pre: [], line: 'b()', post: ['c()'] } },
]
const resolver: SourceMapResolver = {
  resolveFrames: () => Promise.reject(new Error('not used')),
  resolveStack: (_projectId, stack) => Promise.resolve(stack === null || stack === 'no frames' ? null : frames),
  forget: () => undefined,
}

for (const engine of testEngines()) {
  describe(`a list page's sessions as the JSON their rows keep, and a visit's events written as JSON by the statement [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    let projectId: string
    const json = sessionJson()
    /** Every visit's kept JSON against the response serializer's bytes for its row as it is now. */
    const assertKept = async (message: string) => {
      const rows = await listSessions(handle.db, projectId, { cutoff: EVER }, { limit: 100, offset: 0 })
      const kept = await listSessions(handle.db, projectId, { cutoff: EVER }, { limit: 100, offset: 0 }, {}, undefined, json)
      assert.equal(kept.length, visits.length)
      assert.deepEqual(kept.map((r) => [r.id, r.last_seen_at]), rows.map((r) => [r.id, r.last_seen_at]), `${message}: list order`)
      rows.forEach((row, i) => { assert.equal(kept[i]?.json, serialize(toSessionView(row)), `${message}: ${row.id}`) })
    }
    before(async () => {
      handle = await openTestDatabase(engine)
      projectId = (await createProject(handle.db, { name: 'J', domain: 'j.example' })).id
      for (const [seq, e] of events.entries()) await handle.db.insertInto('events').values({ ...e, project_id: projectId, session_id: 'plain', seq }).execute()
      for (const [num, v] of visits.entries()) {
        await handle.db.insertInto('sessions').values({
          project_id: projectId, id: v.id, session_key: `key-${v.id}`, started_at: v.startedAt, start_day: Math.floor(v.startedAt / 86_400_000),
          last_seen_at: v.lastSeenAt, ...factColumns(v.facts), terms: null, events_total: v.counters[0], events_errors: v.counters[1],
          events_slow: v.counters[2], recording_chunks: 0, recording_bytes: 0, recording_dropped: 0, next_seq: 0, num,
        }).execute()
      }
    })
    after(() => handle.dispose())

    it('keeps each session byte for byte as the response schema serializes it, in list order, from its insert', async () => {
      await assertKept('inserted')
    })

    it('writes it again whenever a column it shows is set, by any statement, and not when another is', async () => {
      const visit = (id: string) => handle.db.updateTable('sessions').where('project_id', '=', projectId).where('id', '=', id)
      await visit('plain').set((eb) => ({ events_total: eb('events_total', '+', 7), events_slow: 2, last_seen_at: 1_700_000_100_000 })).execute()
      await visit('year-0000').set({ ...factColumns({ ...noFacts(), user: { id: hostile, traits: { n: 1 } }, tags: { k: hostile }, country: 'FR' }) }).execute()
      await visit('day-edge').set({ started_at: 1_767_225_600_001, start_day: 20_454 }).execute()
      await assertKept('updated')
      // A column the JSON does not show (next_seq) sets nothing: the JSON put aside by hand stays as it was.
      await sql`update sessions set list_json = 'aside' where id = 'plain'`.execute(handle.db)
      await visit('plain').set((eb) => ({ next_seq: eb('next_seq', '+', 1) })).execute()
      const kept = await handle.db.selectFrom('sessions').select(json.as('json')).where('id', '=', 'plain').executeTakeFirst()
      assert.equal(kept?.json, 'aside', 'next_seq is not shown, so its change does not write the JSON')
      await visit('plain').set((eb) => ({ events_errors: eb('events_errors', '+', 0) })).execute()
      await assertKept('a shown column set to the value it had')
    })

    it('writes it again when any one column it shows is set alone', async () => {
      const numbers = new Set(['started_at', 'last_seen_at', 'events_total', 'events_errors', 'events_slow'])
      const objects = new Set(['utm', 'user_traits', 'tags'])
      for (const column of ['started_at', 'last_seen_at', ...FACT_COLUMNS, 'events_total', 'events_errors', 'events_slow']) {
        await sql`update sessions set list_json = 'aside' where id = 'plain'`.execute(handle.db)
        const value = numbers.has(column) ? sql`${sql.ref(column)} + 1` : objects.has(column) ? '{"k":"x"}' : `v-${column}`
        await sql`update sessions set ${sql.ref(column)} = ${value} where id = 'plain'`.execute(handle.db)
        await assertKept(`${column} set alone`)
      }
    })

    it('puts the trigger in place and writes every row again when the schema it was written from changes, once', async () => {
      await sql`update sessions set list_json = 'stale'`.execute(handle.db)
      const lines: string[] = []
      await keepListJson(handle.db, (line) => lines.push(line))
      const stale = await handle.db.selectFrom('sessions').select('id').where(sql<boolean>`list_json = 'stale'`).execute()
      assert.equal(stale.length, visits.length, 'the trigger in place is this schema\'s: nothing is written again')
      assert.equal(lines.length, 0, 'and nothing said')
      // A schema before this one, whose trigger is gone: the trigger is put back, and every row written again.
      const drops = engine === 'postgres' ? ['drop trigger sessions_list_json on sessions'] : ['drop trigger sessions_list_json_insert', 'drop trigger sessions_list_json_update']
      for (const drop of drops) await sql.raw(drop).execute(handle.db)
      await handle.db.updateTable('meta').set({ value: 'a schema before this one' }).where('key', '=', 'sessions.list_json').execute()
      await keepListJson(handle.db, (line) => lines.push(line))
      await assertKept('written again')
      await handle.db.updateTable('sessions').set((eb) => ({ events_total: eb('events_total', '+', 1) })).where('id', '=', 'plain').execute()
      await assertKept('the trigger in place again')
      assert.match(lines[0] ?? '', new RegExp(`^sessions: writing the list JSON of ${String(visits.length)} visits`))
      assert.match(lines[1] ?? '', /^sessions: list JSON written in \d+\.\d s$/)
      const [version] = await handle.db.selectFrom('meta').select('value').where('key', '=', 'sessions.list_json').execute()
      assert.match(version?.value ?? '', /^[0-9a-f]{16}$/, 'the meta row names the trigger now in place')
    })

    it('writes the same through every filter path (a search reads the page with it too)', async () => {
      const page = { limit: 10, offset: 0 }
      const { rows } = await searchSessions(handle.db, projectId, { cutoff: EVER }, page, { user: 'u-1' }, json)
      const [row] = await listSessions(handle.db, projectId, { cutoff: EVER }, page, { user: 'u-1' })
      assert.ok(row)
      assert.deepEqual(rows.map((r) => [r.id, r.json]), [[row.id, serialize(toSessionView(row))]])
      // Each plan a search may take for the page: from the filter's rows (joined to sessions), along the list order, and
      // along it by the keys first (sparse: the page's rows joined to them).
      for (const plan of [{ drive: 'filter', driver: { user: 'u-1' } }, { drive: 'order' }, { drive: 'order', sparse: true }] as const) {
        const planned = await listSessions(handle.db, projectId, { cutoff: EVER }, page, { user: 'u-1' }, plan, json)
        assert.deepEqual(planned.map((r) => [r.id, r.json]), [[row.id, serialize(toSessionView(row))]], `${plan.drive}${'sparse' in plan ? ', sparse' : ''}`)
      }
    })

    // PostgreSQL sends events as values and the service writes their JSON (src/db/sql.ts writesEventJson);
    // test/http/sessions/get.routes.test.ts holds both answers to the serializer.
    it('writes each event of a visit byte for byte as the response schema serializes it, frames and fractions written in', { skip: engine !== 'sqlite' && 'SQLite writes events as JSON' }, async () => {
      const json = eventJson(handle.db)
      assert.ok(json, 'SQLite writes the JSON')
      const views = await toEventViews(resolver, projectId, await listEvents(handle.db, projectId, 'plain'))
      const texts = await toEventTexts(resolver, projectId, await listEvents(handle.db, projectId, 'plain', json))
      assert.equal(views.length, events.length)
      assert.deepEqual(texts, views.map((view) => serializeEvent(view)))
      assert.ok(texts.some((text) => text.includes('"durationMs":0.30000000000000004,')), 'a fraction as JavaScript writes it')
      assert.ok(texts.some((text) => text.includes('"durationMs":2678400000,')), 'a whole number without ".0"')
      const paged = await eventsAfter(handle.db, projectId, 'plain', null, 3, json)
      assert.deepEqual(await toEventTexts(resolver, projectId, paged), texts.slice(0, 3), 'a streamed page writes the same')
      assert.deepEqual(paged.map((r) => [r.created_at, r.seq]), [[-315_619_199_877, 11], [-1, 12], [0, 1]], 'with the cursor of each row')
    })
  })
}
