import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { getProject } from '../../../src/projects/service.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { importSessions } from '../../../src/transfer/service.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'
import { serializeList } from '../../helpers/serializers.ts'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const LIST_SESSION_KEYS = ['browser', 'country', 'entryUrl', 'environment', 'events', 'id', 'ip', 'lastSeenAt', 'os', 'release', 'sessionKey', 'startedAt',
  'tags', 'user', 'userAgent', 'utm']

interface ListBody {
  project: { id: string; name: string; domain: string }
  total: number
  limit: number
  offset: number
  sessions: { id: string; sessionKey: string; startedAt: string; lastSeenAt: string; events: Record<string, number> }[]
}

const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
const dayD = today - 3 * DAY_MS // a full UTC day safely inside retention
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** Creates a session whose events span [start, end]. */
async function session(t: TestApp, key: string, start: number, end = start, extra: Record<string, unknown>[] = []) {
  const events = [{ type: 'NAVIGATION', url: 'https://shop.example/', createdAt: start }, ...extra]
  if (end !== start) events.push({ type: 'CLICK', message: 'a#next', createdAt: end })
  const res = await t.ingest(batch(key, events))
  assert.equal(res.statusCode, 200, res.body)
  return json<{ sessionId: string }>(res).sessionId
}

for (const engine of testEngines()) {
  describe(`read API v1 sessions [${engine}]`, () => {
    let t: TestApp
    const ids = { before: '', first: '', mid: '', last: '', after: '', recent: '' }
    before(async () => {
      t = await startTestApp(engine)
      // Boundaries of day D: the last millisecond before, the first and last inside, the first after.
      ids.before = await session(t, 'key-before-D', dayD - 1, dayD + 5 * 60_000)
      ids.first = await session(t, 'key-first-in-D', dayD, dayD + 10 * 60_000)
      ids.mid = await session(t, 'key-mid-of-D', dayD + 12 * 3_600_000, dayD + 12 * 3_600_000 + 60_000)
      ids.last = await session(t, 'key-last-in-D', dayD + DAY_MS - 1, dayD + DAY_MS + 30 * 60_000)
      ids.after = await session(t, 'key-after-D', dayD + DAY_MS, dayD + DAY_MS + 60_000)
      ids.recent = await session(t, 'key-recent-1', today + 1000, today + 2000)
    })
    after(() => t.close())

    it('lists sessions with project, total, limit, offset and the spec fields', async () => {
      const res = await t.get('/api/v1/sessions')
      assert.equal(res.statusCode, 200)
      assert.match(String(res.headers['content-type']), /^application\/json/)
      const body = json<ListBody>(res)
      assert.deepEqual(Object.keys(body), ['project', 'total', 'limit', 'offset', 'sessions', 'next'])
      assert.deepEqual(body.project, { id: t.project.id, name: 'Shop', domain: 'shop.example' })
      assert.equal(body.total, 6)
      assert.equal(body.limit, 50, 'limit defaults to 50')
      assert.equal(body.offset, 0, 'offset defaults to 0')
      for (const s of body.sessions) {
        assert.deepEqual(Object.keys(s).sort(), LIST_SESSION_KEYS)
        assert.match(s.startedAt, ISO_MS)
        assert.match(s.lastSeenAt, ISO_MS)
        assert.deepEqual(Object.keys(s.events).sort(), ['errors', 'slow', 'total'])
      }
    })

    it('orders by lastSeenAt descending, then id descending', async () => {
      const tie = dayD + 20 * 3_600_000
      const a = await session(t, 'key-tie-aaaa', tie - 5000, tie)
      const b = await session(t, 'key-tie-bbbb', tie - 9000, tie)
      const body = json<ListBody>(await t.get('/api/v1/sessions?limit=200'))
      const seen = body.sessions.map((s) => [Date.parse(s.lastSeenAt), s.id] as const)
      const sorted = [...seen].sort((x, y) => y[0] - x[0] || (x[1] < y[1] ? 1 : x[1] > y[1] ? -1 : 0))
      assert.deepEqual(seen, sorted)
      const tied = body.sessions.filter((s) => s.id === a || s.id === b).map((s) => s.id)
      assert.deepEqual(tied, [a, b].sort().reverse(), 'equal lastSeenAt is broken by id descending')
      assert.equal(body.sessions[0]?.id, ids.recent)
    })

    it('pages with limit and offset without overlap or gaps; total ignores both', async () => {
      const all = json<ListBody>(await t.get('/api/v1/sessions?limit=200')).sessions.map((s) => s.id)
      const paged: string[] = []
      for (let offset = 0; offset < all.length; offset += 3) {
        const body = json<ListBody>(await t.get(`/api/v1/sessions?limit=3&offset=${offset}`))
        assert.equal(body.total, all.length)
        assert.equal(body.limit, 3)
        assert.equal(body.offset, offset)
        paged.push(...body.sessions.map((s) => s.id))
      }
      assert.deepEqual(paged, all)
      const past = json<ListBody>(await t.get(`/api/v1/sessions?offset=${all.length + 10}`))
      assert.deepEqual(past.sessions, [])
      assert.equal(past.total, all.length)
    })

    it('answers an empty page for the largest offset, 2^53−1, with the total', async () => {
      const res = await t.get('/api/v1/sessions?offset=9007199254740991')
      assert.equal(res.statusCode, 200, res.body)
      const body = json<ListBody>(res)
      assert.deepEqual([body.offset, body.sessions.length], [Number.MAX_SAFE_INTEGER, 0])
      assert.ok(body.total > 0)
    })

    it('accepts the bounds of limit: 1 and 200', async () => {
      assert.equal(json<ListBody>(await t.get('/api/v1/sessions?limit=1')).sessions.length, 1)
      assert.equal(json<ListBody>(await t.get('/api/v1/sessions?limit=200')).limit, 200)
    })

    it('date=YYYY-MM-DD selects sessions that started on that UTC day', async () => {
      const body = json<ListBody>(await t.get(`/api/v1/sessions?date=${isoDay(dayD)}`))
      const got = new Set(body.sessions.map((s) => s.id))
      assert.ok(got.has(ids.first) && got.has(ids.mid) && got.has(ids.last))
      assert.ok(!got.has(ids.before) && !got.has(ids.after))
      assert.equal(body.total, body.sessions.length)
      const days = body.sessions.map((s) => isoDay(Date.parse(s.startedAt)))
      assert.ok(days.every((d) => d === isoDay(dayD)))
    })

    it('date overrides from and to', async () => {
      const from = new Date(today).toISOString()
      const res = await t.get(`/api/v1/sessions?date=${isoDay(dayD)}&from=${from}&to=${from}`)
      const body = json<ListBody>(res)
      assert.ok(body.sessions.some((s) => s.id === ids.mid))
    })

    it('from is inclusive and to exclusive, on startedAt, with Z, offsets or bare dates', async () => {
      const from = new Date(dayD).toISOString()
      const to = new Date(dayD + DAY_MS).toISOString()
      const exact = json<ListBody>(await t.get(`/api/v1/sessions?from=${from}&to=${to}`))
      const got = exact.sessions.map((s) => s.id)
      assert.ok(got.includes(ids.first), 'from is inclusive')
      assert.ok(!got.includes(ids.after), 'to is exclusive')
      assert.ok(!got.includes(ids.before))
      assert.equal(exact.total, got.length)
      const bare = json<ListBody>(await t.get(`/api/v1/sessions?from=${isoDay(dayD)}&to=${isoDay(dayD + DAY_MS)}`))
      assert.deepEqual(bare.sessions.map((s) => s.id), got, 'a bare date means that day\'s UTC midnight')
      // 03:00+03:00 on day D is D's UTC midnight.
      const offset = `${isoDay(dayD)}T03:00:00%2B03:00`
      const withOffset = json<ListBody>(await t.get(`/api/v1/sessions?from=${offset}&to=${to}`))
      assert.deepEqual(withOffset.sessions.map((s) => s.id), got)
      const onlyFrom = json<ListBody>(await t.get(`/api/v1/sessions?from=${new Date(dayD + DAY_MS).toISOString()}`))
      assert.deepEqual(new Set(onlyFrom.sessions.map((s) => s.id)), new Set([ids.after, ids.recent]))
      assert.equal(onlyFrom.total, 2)
      const onlyTo = json<ListBody>(await t.get(`/api/v1/sessions?to=${new Date(dayD).toISOString()}`))
      assert.deepEqual(onlyTo.sessions.map((s) => s.id), [ids.before])
      assert.equal(onlyTo.total, 1)
      const partial = json<ListBody>(await t.get(`/api/v1/sessions?from=${new Date(dayD + 3600_000).toISOString()}&to=${new Date(dayD + 13 * 3_600_000).toISOString()}`))
      assert.deepEqual(partial.sessions.map((s) => s.id), [ids.mid], 'partial days at both ends are counted exactly')
      assert.equal(partial.total, 1)
    })

    const invalid: [string, string][] = [
      ['limit=0', 'limit'], ['limit=201', 'limit'], ['limit=abc', 'limit'], ['limit=1.5', 'limit'], ['limit=', 'limit'],
      ['offset=-1', 'offset'], ['offset=abc', 'offset'], ['limit=10&limit=20', 'limit'],
      ['date=2026-02-30', 'date'], ['date=2026-2-3', 'date'], ['date=yesterday', 'date'], ['date=2026-13-01', 'date'],
      ['from=2026-02-30T00:00:00Z', 'from'], ['from=tomorrow', 'from'], ['to=2026-01-01T10:00:00', 'to'],
      ['from=2026-01-02&to=2026-01-01', 'from'], ['date=2026-01-01&from=garbage', 'from'],
      // Only plain digits are integers: nothing is coerced from hex, exponents, signs, spaces or decimals.
      ['limit=0x10', 'limit'], ['limit=1e1', 'limit'], ['limit=%2B5', 'limit'], ['limit=%205', 'limit'], ['limit=5.0', 'limit'],
      ['offset=Infinity', 'offset'], ['offset=1e400', 'offset'], ['offset=1e19', 'offset'], ['offset=9223372036854775808', 'offset'],
      ['offset=9007199254740992', 'offset'], ['offset=1'.padEnd(410, '0'), 'offset'],
    ]
    for (const [query, parameter] of invalid) {
      it(`answers 400 naming ${parameter} for ${query}`, async () => {
        const res = await t.get(`/api/v1/sessions?${query}`)
        assert.equal(res.statusCode, 400)
        const body = json(res)
        assert.equal(body.code, 'invalid_parameter')
        assert.equal(body.parameter, parameter)
        assert.equal(body.statusCode, 400)
        assert.match(String(body.message), new RegExp(`^${parameter} `))
      })
    }

    it('says what is allowed in the 400 message', async () => {
      assert.match(String(json(await t.get('/api/v1/sessions?limit=201')).message), /integer from 1 to 200/)
      assert.match(String(json(await t.get('/api/v1/sessions?offset=-1')).message), /integer from 0 to 9007199254740991/)
      assert.equal(json(await t.get('/api/v1/sessions?limit=0x10')).message, 'limit must be an integer from 1 to 200 (got "0x10")')
      assert.match(String(json(await t.get('/api/v1/sessions?date=2026-02-30')).message), /YYYY-MM-DD/)
    })

    it('accepts dates before 1970: an empty period, with the sessions after it counted', async () => {
      for (const query of ['date=1969-12-31', 'date=0000-01-01', 'from=0000-01-01&to=1970-01-01', 'to=1969-12-31T23:59:59.999Z']) {
        const res = await t.get(`/api/v1/sessions?${query}`)
        assert.equal(res.statusCode, 200, `${query}: ${res.body}`)
        assert.deepEqual([json<ListBody>(res).total, json<ListBody>(res).sessions], [0, []], query)
      }
      const all = json<ListBody>(await t.get('/api/v1/sessions')).total
      assert.equal(json<ListBody>(await t.get('/api/v1/sessions?from=1969-12-31T00:00:00Z')).total, all)
      assert.equal(json<ListBody>(await t.get('/api/v1/sessions?from=0001-01-01&to=9999-12-31')).total, all)
    })

    it('accepts from equal to to (an empty period)', async () => {
      const res = await t.get(`/api/v1/sessions?from=${isoDay(dayD)}&to=${isoDay(dayD)}`)
      assert.equal(res.statusCode, 200)
      assert.equal(json<ListBody>(res).total, 0)
    })

    it('ignores unknown query parameters', async () => {
      assert.equal((await t.get('/api/v1/sessions?foo=bar')).statusCode, 200)
    })

    it('writes every visitor fact as the response schema serializes it, hostile text included, on any filter path', async () => {
      // The answer is the bytes the schema's serializer writes, and the values those stored, whichever way the page is read.
      const hostile = `${Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('')}"\\/\u2028é😀</script>`
      const other = await t.newProject('Facts')
      const at = today - 3_600_000 + 123
      const session = {
        id: 's-hostile', sessionKey: `k-${hostile}`, startedAt: new Date(at).toISOString(), lastSeenAt: new Date(at + 999).toISOString(),
        ip: '2001:db8::1', country: 'DE', userAgent: hostile, utm: { utm_source: hostile }, entryUrl: `https://shop.example/?q=${hostile}`,
        browser: 'Chrome', os: 'macOS', user: { id: hostile, traits: { seats: 12, ratio: 1.5, big: 1e21, on: true, text: hostile } },
        tags: { 'a.b': hostile }, release: hostile, environment: 'production',
      }
      const bare = { id: 'bare', sessionKey: 'k-bare', startedAt: new Date(at - 5000).toISOString(), lastSeenAt: new Date(at - 5000).toISOString() }
      const imported = await importSessions(t.app.db, await getProject(t.app.db, other.id),
        [JSON.stringify({ ...session, events: [] }), JSON.stringify({ ...bare, events: [] })], t.app.recordings)
      assert.deepEqual([imported.imported, imported.bad], [2, []])
      const none = { ip: null, country: null, userAgent: null, utm: null, entryUrl: null, browser: null, os: null, user: null, tags: null, release: null, environment: null }
      const counters = { events: { total: 0, errors: 0, slow: 0 } }
      for (const query of ['', `?user=${encodeURIComponent(hostile)}`, `?date=${isoDay(at)}`]) {
        const res = await t.get(`/api/v1/sessions${query}`, other.apiKey)
        assert.equal(res.statusCode, 200, res.body)
        const body = json<ListBody & { next: null }>(res)
        assert.equal(res.body, serializeList(body), `${query}: the serializer's bytes`)
        const expected = query.startsWith('?user') ? [{ ...session, ...counters }] : [{ ...session, ...counters }, { ...bare, ...none, ...counters }]
        assert.deepEqual(body.sessions, expected, query)
      }
    })
  })
}
