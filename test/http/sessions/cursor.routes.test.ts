/**
 * The lists' cursors (API v1 extension): every list answer carries `next`, and `?after=<next>` answers the
 * page after it — the same rows as `offset` would, bound to the filters that listed them.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DAY_MS } from '../../../src/util/time.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'

interface Page { total: number; limit: number; offset: number; next: string | null }
interface SessionPage extends Page { sessions: { id: string }[] }
interface IssuePage extends Page { issues: { id: string }[] }
interface ErrorBody { code: string; parameter?: string; message: string }

const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
const day = today - 2 * DAY_MS

/** Follows `next` from the first page of `path` (with `limit`) to the last; every page as answered. */
async function walk<P extends Page>(t: TestApp, path: string, limit: number): Promise<P[]> {
  const sep = path.includes('?') ? '&' : '?'
  const pages = [json<P>(await t.get(`${path}${sep}limit=${limit}`))]
  for (let next = pages[0]?.next; next; next = pages.at(-1)?.next) {
    const res = await t.get(`${path}${sep}limit=${limit}&after=${next}`)
    assert.equal(res.statusCode, 200, res.body)
    pages.push(json<P>(res))
    assert.ok(pages.length < 50, 'the walk ends')
  }
  return pages
}

for (const engine of testEngines()) {
  describe(`list cursors (next, after=) [${engine}]`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(engine)
      // 9 visits on one day, three of them ending at the same millisecond (id breaks the tie), every third with an error of its own.
      for (let i = 0; i < 9; i++) {
        const end = i < 3 ? day + 5 * 3_600_000 : day + i * 3_600_000
        const events: Record<string, unknown>[] = [{ type: 'NAVIGATION', url: 'https://shop.example/', createdAt: end - 60_000 - i }]
        const error = ['TypeError: basket is empty', undefined, undefined, 'RangeError: price out of range', undefined, undefined, 'SyntaxError: bad coupon'][i]
        if (error) events.push({ type: 'ERROR', message: error, stack: `${error}\n    at f${i} (https://shop.example/app.js:1:${i + 1})`, createdAt: end - 1 })
        events.push({ type: 'CLICK', message: 'a#next', createdAt: end })
        assert.equal((await t.ingest(batch(`cursor-visit-${i}`, events))).statusCode, 200)
      }
      // One visit on another day: a date= walk leaves it out.
      await t.ingest(batch('cursor-visit-other-day', [{ type: 'NAVIGATION', url: 'https://shop.example/', createdAt: today + 1000 }]))
    })
    after(() => t.close())

    for (const [name, query] of [['every visit', ''], ['errors=true', '?errors=true'], ['date=', `?date=${new Date(day).toISOString().slice(0, 10)}`],
      ['q= (text search)', '?q=shop.example']] as const) {
      it(`${name}: following next lists what offset pages list, in order, once each, with the exact total on every page`, async () => {
        const whole = json<SessionPage>(await t.get(`/api/v1/sessions${query}${query ? '&' : '?'}limit=200`))
        assert.equal(whole.next, null, 'one page holds them all')
        for (const limit of [1, 2, 4]) {
          const pages = await walk<SessionPage>(t, `/api/v1/sessions${query}`, limit)
          assert.deepEqual(pages.flatMap((p) => p.sessions.map((s) => s.id)), whole.sessions.map((s) => s.id), `limit ${limit}`)
          assert.deepEqual(pages.map((p) => p.offset), pages.map((_, i) => i * limit), 'offset says where each page starts')
          for (const p of pages) assert.equal(p.total, whole.total)
          assert.equal(pages.length, Math.max(1, Math.ceil(whole.total / limit)), 'the last full page has no next')
          // The same position by offset gives the same page.
          const second = pages[1]
          if (second) {
            const byOffset = json<SessionPage>(await t.get(`/api/v1/sessions${query}${query ? '&' : '?'}limit=${limit}&offset=${limit}`))
            assert.deepEqual(byOffset.sessions, second.sessions)
            assert.equal(byOffset.next, second.next, 'an offset page gives the cursor its rows end at')
          }
        }
      })
    }

    it('limit may change between pages; the filters may not', async () => {
      const first = json<SessionPage>(await t.get('/api/v1/sessions?errors=true&limit=1'))
      assert.ok(first.next)
      const wider = json<SessionPage>(await t.get(`/api/v1/sessions?errors=true&limit=5&after=${first.next}`))
      assert.deepEqual([wider.offset, wider.sessions.length, wider.next], [1, 2, null])
      // The same filter spelled another way is the same list.
      const spelled = await t.get(`/api/v1/sessions?errors=true&limit=1&after=${first.next}&tag.none=x`)
      assert.equal(spelled.statusCode, 400, 'an added filter is another list')
      for (const other of ['/api/v1/sessions?limit=1', '/api/v1/sessions?errors=true&recording=true&limit=1', '/api/v1/sessions?errors=true&from=2020-01-01&limit=1']) {
        const res = await t.get(`${other}&after=${first.next}`)
        assert.equal(res.statusCode, 400, other)
        const body = json<ErrorBody>(res)
        assert.deepEqual([body.code, body.parameter], ['invalid_parameter', 'after'])
        assert.match(body.message, /other filters/)
      }
    })

    it('answers 400 naming the parameter for a cursor it did not give, or one combined with offset', async () => {
      const first = json<SessionPage>(await t.get('/api/v1/sessions?limit=1'))
      for (const [query, parameter] of [['after=', 'after'], ['after=%2B%2B', 'after'], ['after=bm90LWpzb24', 'after'], [`after=${'A'.repeat(601)}`, 'after'],
        [`after=${first.next ?? ''}&offset=3`, 'offset']] as const) {
        const res = await t.get(`/api/v1/sessions?${query}`)
        assert.equal(res.statusCode, 400, query)
        const body = json<ErrorBody>(res)
        assert.deepEqual([body.code, body.parameter], ['invalid_parameter', parameter], query)
      }
    })

    it('a cursor of one project lists nothing of another\'s: it is bound to its project', async () => {
      const other = await t.newProject('Other')
      const first = json<SessionPage>(await t.get('/api/v1/sessions?limit=1'))
      const res = await t.get(`/api/v1/sessions?limit=1&after=${first.next ?? ''}`, other.apiKey)
      assert.deepEqual([res.statusCode, json<ErrorBody>(res).parameter], [400, 'after'])
    })

    it('a visit with new activity moves ahead of the cursor and is not listed twice', async () => {
      const first = json<SessionPage>(await t.get('/api/v1/sessions?limit=3'))
      const last = (await walk<SessionPage>(t, '/api/v1/sessions', 200))[0]?.sessions.at(-1)
      assert.ok(first.next && last)
      const key = (await t.get(`/api/v1/sessions/${last.id}`)).json<{ session: { sessionKey: string } }>().session.sessionKey
      assert.equal((await t.ingest(batch(key, [{ type: 'CLICK', message: 'again', createdAt: Date.now() }]))).statusCode, 200)
      const rest = json<SessionPage>(await t.get(`/api/v1/sessions?limit=200&after=${first.next}`))
      assert.ok(!rest.sessions.some((s) => s.id === last.id), 'it is on a new first page, not after the cursor')
      assert.ok(!rest.sessions.some((s) => first.sessions.some((f) => f.id === s.id)), 'no row of the first page again')
    })

    for (const sort of ['', 'lastSeen', 'events', 'sessions']) {
      it(`issues${sort ? ` sort=${sort}` : ''}: following next lists what one page lists`, async () => {
        const query = sort ? `?sort=${sort}` : ''
        const whole = json<IssuePage>(await t.get(`/api/v1/issues${query}${query ? '&' : '?'}limit=200`))
        assert.equal(whole.total, 3)
        const pages = await walk<IssuePage>(t, `/api/v1/issues${query}`, 1)
        assert.deepEqual(pages.flatMap((p) => p.issues.map((i) => i.id)), whole.issues.map((i) => i.id))
        assert.deepEqual(pages.map((p) => [p.offset, p.total]), [[0, 3], [1, 3], [2, 3]])
      })
    }

    it('issues: a cursor of another sort or status is refused, naming after', async () => {
      const first = json<IssuePage>(await t.get('/api/v1/issues?sort=events&limit=1'))
      for (const other of ['sort=sessions', 'sort=lastSeen', 'sort=events&status=open']) {
        const res = await t.get(`/api/v1/issues?${other}&limit=1&after=${first.next ?? ''}`)
        assert.deepEqual([res.statusCode, json<ErrorBody>(res).parameter], [400, 'after'], other)
      }
    })
  })
}
