import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fastJson from 'fast-json-stringify'
import type { RawBuilder } from 'kysely'
import { createProject } from '../../../src/projects/service.ts'
import { CountersSchema, SessionSchema } from '../../../src/sessions/schema.ts'
import { sessionJson, toSessionView } from '../../../src/sessions/views.ts'
import { factColumns, noFacts, type VisitorFacts } from '../../../src/visits/facts.ts'
import { listSessions, searchSessions } from '../../../src/visits/read.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'

/** The response schema's own serializer, compiled as Fastify compiles it for the list route. */
const serialize = fastJson(SessionSchema, { schema: { EventCounters: CountersSchema } })

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
]

// PostgreSQL sends the values and the service writes the JSON (src/db/sql.ts writesListJson); test/http/sessions/list.routes.test.ts holds both answers to the serializer.
for (const engine of testEngines().filter((e) => e === 'sqlite')) {
  describe(`a list page's sessions written as JSON by the statement [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    let projectId: string
    let json: RawBuilder<string>
    before(async () => {
      handle = await openTestDatabase(engine)
      const written = sessionJson(handle.db)
      assert.ok(written, 'SQLite writes the JSON')
      json = written
      projectId = (await createProject(handle.db, { name: 'J', domain: 'j.example' })).id
      for (const v of visits) {
        await handle.db.insertInto('sessions').values({
          project_id: projectId, id: v.id, session_key: `key-${v.id}`, started_at: v.startedAt, start_day: Math.floor(v.startedAt / 86_400_000),
          last_seen_at: v.lastSeenAt, ...factColumns(v.facts), terms: null, events_total: v.counters[0], events_errors: v.counters[1],
          events_slow: v.counters[2], recording_chunks: 0, recording_bytes: 0, recording_dropped: 0, next_seq: 0,
        }).execute()
      }
    })
    after(() => handle.dispose())

    it('writes each session byte for byte as the response schema serializes it, in list order', async () => {
      const page = { limit: 10, offset: 0 }
      const rows = await listSessions(handle.db, projectId, { cutoff: 0 }, page)
      const written = await listSessions(handle.db, projectId, { cutoff: 0 }, page, {}, undefined, json)
      assert.equal(rows.length, visits.length)
      assert.deepEqual(written.map((r) => [r.id, r.last_seen_at]), rows.map((r) => [r.id, r.last_seen_at]))
      rows.forEach((row, i) => { assert.equal(written[i]?.json, serialize(toSessionView(row)), row.id) })
    })

    it('writes the same through every filter path (a search reads the page with it too)', async () => {
      const page = { limit: 10, offset: 0 }
      const { rows } = await searchSessions(handle.db, projectId, { cutoff: 0 }, page, { user: 'u-1' }, json)
      assert.deepEqual(rows.map((r) => r.id), ['user-without-traits'])
      const [row] = await listSessions(handle.db, projectId, { cutoff: 0 }, page, { user: 'u-1' })
      assert.ok(row)
      assert.equal(rows[0]?.json, serialize(toSessionView(row)))
    })
  })
}
