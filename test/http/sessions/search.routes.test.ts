import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'
import { foundIds, listed, sorted } from './search-helpers.ts'

interface Listed {
  id: string
  user: { id: string; traits: Record<string, unknown> | null } | null
  tags: Record<string, string> | null
  release: string | null
  environment: string | null
  entryUrl: string | null
  browser: string | null
  os: string | null
}
interface ListBody {
  total: number
  sessions: Listed[]
}

const CHROME_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'

for (const engine of testEngines()) {
  describe(`listSessions search [${engine}]`, () => {
    let t: TestApp
    const ids = { alice: '', bob: '', anon: '' }
    const now = Date.now()
    const send = async (key: string, events: Record<string, unknown>[], extra: Record<string, unknown>, ua: string, ip: string) => {
      const res = await t.ingest(batch(key, events, extra), { headers: { 'user-agent': ua }, remoteAddress: ip })
      assert.equal(res.statusCode, 200, res.body)
      return json<{ sessionId: string }>(res).sessionId
    }
    const list = async (query: string): Promise<ListBody> => (await listed(t, query)) as unknown as ListBody
    const found = (query: string): Promise<string[]> => foundIds(t, query)

    before(async () => {
      t = await startTestApp(engine)
      ids.alice = await send('key-alice-1', [
        { type: 'NAVIGATION', url: 'https://shop.example/checkout/payment', createdAt: now - 5000 },
        { type: 'ERROR', message: 'TypeError: Cannot read properties of undefined (reading \'price\')', createdAt: now - 4000 },
        { type: 'USER_REPORT', message: 'The pay button does nothing', createdAt: now - 3000 },
        { type: 'HTTP_ERROR', url: 'https://shop.example/api/pay', method: 'POST', statusCode: 502, createdAt: now - 2000 },
      ], {
        page: 'https://shop.example/checkout/payment', user: { id: 'alice@example.com', traits: { plan: 'pro', seats: 3 } },
        tags: { plan: 'pro', team: 'red' }, release: '2.4.1', environment: 'production',
      }, CHROME_WINDOWS, '81.2.69.142')
      ids.bob = await send('key-bob-1', [
        { type: 'NAVIGATION', url: 'https://shop.example/search?q=shoes', createdAt: now - 5000 },
        { type: 'HTTP_ERROR', url: 'https://shop.example/api/search', method: 'GET', statusCode: 404, createdAt: now - 4000 },
        { type: 'CONSOLE_ERROR', message: 'Deprecated API used', createdAt: now - 3000 },
      ], { user: { id: 'bob' }, tags: { plan: 'free' }, release: '2.4.0' }, FIREFOX_LINUX, '203.0.113.7')
      ids.anon = await send('key-anon-1', [
        { type: 'NAVIGATION', url: 'https://shop.example/', createdAt: now - 5000 },
        { type: 'CLICK', message: 'a.menu "Shoes"', createdAt: now - 4000 },
      ], {}, SAFARI_IPHONE, '198.51.100.9')
    })
    after(() => t.close())

    it('shows who the visit was: user with traits, tags, release, environment, entry page, browser and OS', async () => {
      const body = await list('')
      const alice = body.sessions.find((s) => s.id === ids.alice)
      assert.deepEqual(alice && {
        user: alice.user, tags: alice.tags, release: alice.release, environment: alice.environment,
        entryUrl: alice.entryUrl, browser: alice.browser, os: alice.os,
      }, {
        user: { id: 'alice@example.com', traits: { plan: 'pro', seats: 3 } }, tags: { plan: 'pro', team: 'red' }, release: '2.4.1',
        environment: 'production', entryUrl: 'https://shop.example/checkout/payment', browser: 'Chrome', os: 'Windows',
      })
      const anon = body.sessions.find((s) => s.id === ids.anon)
      assert.deepEqual(anon && [anon.user, anon.tags, anon.release, anon.environment, anon.browser, anon.os],
        [null, null, null, null, 'Safari', 'iOS'])
      const detail = json<{ session: Listed }>(await t.get(`/api/v1/sessions/${ids.alice}`)).session
      assert.deepEqual(detail.user, alice?.user, 'getSession shows the same user')
    })

    it('the latest batch that names a user, tags or a release sets them; a batch without keeps them', async () => {
      const key = 'key-changes-1'
      const first = await send(key, [{ type: 'CLICK', message: 'x', createdAt: now - 1000 }],
        { user: { id: 'guest-1', traits: { a: 1 } }, tags: { step: 'cart' }, release: '1' }, CHROME_WINDOWS, '203.0.113.8')
      await send(key, [{ type: 'CLICK', message: 'y', createdAt: now - 900 }], {}, CHROME_WINDOWS, '203.0.113.8')
      let s = json<{ session: Listed }>(await t.get(`/api/v1/sessions/${first}`)).session
      assert.deepEqual([s.user, s.tags, s.release], [{ id: 'guest-1', traits: { a: 1 } }, { step: 'cart' }, '1'])
      await send(key, [{ type: 'CLICK', message: 'z', createdAt: now - 800 }],
        { user: { id: 'carol' }, tags: { step: 'paid' }, release: '2' }, CHROME_WINDOWS, '203.0.113.8')
      s = json<{ session: Listed }>(await t.get(`/api/v1/sessions/${first}`)).session
      assert.deepEqual([s.user, s.tags, s.release], [{ id: 'carol', traits: null }, { step: 'paid' }, '2'])
      assert.deepEqual(await found('user=carol'), [first])
      assert.deepEqual(await found('user=guest-1'), [], 'user= matches the latest user only')
      // Tags are remembered per visit: the visit was tagged step=cart, and is step=paid now.
      assert.deepEqual(await found('tag.step=cart'), [first])
      assert.deepEqual(await found('tag.step=paid'), [first])
    })

    it('errors=true and recording=true', async () => {
      assert.deepEqual(await found('errors=true'), sorted(ids.alice, ids.bob))
      assert.deepEqual(await found('recording=true'), [])
    })

    it('user=, country=, browser= and os= match exactly (families in any case)', async () => {
      assert.deepEqual(await found('user=alice%40example.com'), [ids.alice])
      assert.deepEqual(await found('user=ALICE%40example.com'), [], 'user ids are exact')
      assert.deepEqual(await found('browser=firefox'), [ids.bob])
      assert.deepEqual(await found('browser=SAFARI&os=ios'), [ids.anon])
      assert.deepEqual(await found('os=Linux'), [ids.bob])
      const country = (await list('')).sessions.find((s) => s.id === ids.alice) as unknown as { country: string | null }
      if (country.country) assert.deepEqual(await found(`country=${country.country.toLowerCase()}`), [ids.alice])
      assert.deepEqual(await found('country=ZZ'), [])
    })

    it('url= finds a visit by a part of any of its pages, in any case', async () => {
      assert.deepEqual(await found('url=CHECKOUT%2Fpay'), [ids.alice])
      assert.deepEqual(await found('url=q%3Dshoes'), [ids.bob])
      assert.deepEqual(await found('url=%2Fapi%2Fpay'), [], 'a request URL is not a page')
    })

    it('q= searches messages, URLs, user id and traits; every word must occur; "phrases" as written', async () => {
      assert.deepEqual(await found('q=pay%20button'), [ids.alice], 'a report message')
      assert.deepEqual(await found('q=reading'), [ids.alice], 'an error message, part of a word')
      assert.deepEqual(await found('q=api%2Fsearch'), [ids.bob], 'a request URL')
      assert.deepEqual(await found('q=alice%40example'), [ids.alice], 'the user id')
      assert.deepEqual(await found('q=seats'), [ids.alice], 'a trait')
      assert.deepEqual(await found('q=%22button%20does%22'), [ids.alice])
      assert.deepEqual(await found('q=%22does%20button%22'), [], 'a phrase keeps its order')
      assert.deepEqual(await found('q=shoes'), sorted(ids.bob, ids.anon), 'a page URL and a click')
      assert.deepEqual(await found('q=shoes%20menu'), [ids.anon])
    })

    it('type= and status= (a code or a class)', async () => {
      assert.deepEqual(await found('type=USER_REPORT'), [ids.alice])
      assert.deepEqual(await found('type=CONSOLE_ERROR'), [ids.bob])
      assert.deepEqual(await found('status=502'), [ids.alice])
      assert.deepEqual(await found('status=5xx'), [ids.alice])
      assert.deepEqual(await found('status=4XX'), [ids.bob])
      assert.deepEqual(await found('status=500'), [])
    })

    it('tag.<key>=<value>', async () => {
      assert.deepEqual(await found('tag.plan=pro'), [ids.alice])
      assert.deepEqual(await found('tag.plan=free'), [ids.bob])
      assert.deepEqual(await found('tag.plan=pro&tag.team=red'), [ids.alice])
      assert.deepEqual(await found('tag.plan=pro&tag.team=blue'), [])
    })

    it('combines filters with each other and with date, and pages through them with an exact total', async () => {
      assert.deepEqual(await found('errors=true&browser=chrome'), [ids.alice])
      assert.deepEqual(await found('errors=true&q=shoes'), [ids.bob])
      assert.deepEqual(await found('type=HTTP_ERROR&os=windows'), [ids.alice])
      const today = new Date(now).toISOString().slice(0, 10)
      assert.deepEqual(await found(`date=${today}&user=bob`), [ids.bob])
      assert.deepEqual(await found('date=2000-01-01&user=bob'), [])
      const paged = await list('errors=true&limit=1&offset=1')
      assert.equal(paged.total, 2)
      assert.equal(paged.sessions.length, 1)
    })

    it('answers 400 naming the parameter for a bad value', async () => {
      for (const [query, name] of [
        ['errors=yes', 'errors'], ['recording=1', 'recording'], ['country=DEU', 'country'], ['q=ab', 'q'], ['q=ok%20ab', 'q'],
        ['url=ab', 'url'], ['type=user_report', 'type'], ['status=6xx', 'status'], ['status=abc', 'status'], ['user=', 'user'],
        [`q=${'a'.repeat(201)}`, 'q'], ['q=one%20two%20three%20four%20five%20six', 'q'], ['tag.plan=', 'tag.plan'],
      ] as const) {
        const res = await t.get(`/api/v1/sessions?${query}`)
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`)
        assert.match(json<{ message: string }>(res).message, new RegExp(name.replace('.', '\\.')), `${query} names ${name}`)
      }
    })

    it('documents every search parameter in the OpenAPI document', async () => {
      const doc = json<{ paths: Record<string, { get: { parameters: { name: string }[] } }> }>(await t.app.inject({ url: '/api/v1/openapi.json' }))
      const names = doc.paths['/api/v1/sessions']?.get.parameters.map((p) => p.name) ?? []
      for (const name of ['errors', 'recording', 'user', 'country', 'browser', 'os', 'url', 'q', 'type', 'status', 'tags', 'issue']) {
        assert.ok(names.includes(name), `listSessions documents ${name}`)
      }
    })

    it('never shows another project\'s visits', async () => {
      const other = await t.newProject('Other')
      const res = await t.get('/api/v1/sessions?user=alice%40example.com', other.apiKey)
      assert.equal(json<ListBody>(res).total, 0)
      const q = await t.get('/api/v1/sessions?q=pay%20button', other.apiKey)
      assert.equal(json<ListBody>(q).total, 0)
    })
  })
}
