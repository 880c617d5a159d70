import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { getProject } from '../../../src/projects/service.ts'
import { importSessions } from '../../../src/transfer/service.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'

interface Vital { p75: number | null; good: number; needsImprovement: number; poor: number }
interface Page { url: string; views: number; lcp: Vital; inp: Vital; cls: Vital; fcp: Vital; ttfb: Vital; rageClicks: number; deadClicks: number; errors: number }
interface PageList { total: number; limit: number; offset: number; pages: Page[] }

const none: Vital = { p75: null, good: 0, needsImprovement: 0, poor: 0 }
const PRODUCT = 'https://shop.example/products/:id'
const CART = 'https://shop.example/cart'
const ABOUT = 'https://shop.example/about'

for (const engine of testEngines()) {
  describe(`pages API [${engine}]`, () => {
    let t: TestApp
    // Two whole UTC days before today: the product page is viewed on both, the cart and about pages on the second.
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
    const first = today - 2 * DAY_MS + 3_600_000
    const second = today - DAY_MS + 3_600_000
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10)
    const list = async (query = '', apiKey?: string) => {
      const res = await t.get(`/api/v1/pages${query}`, apiKey)
      assert.equal(res.statusCode, 200, res.body)
      return json<PageList>(res)
    }
    const vital = (name: string, value: number, url: string, at: number) => ({ type: 'WEB_VITAL', name, value, url, createdAt: at })

    before(async () => {
      t = await startTestApp(engine)
      const product = (id: number) => `https://Shop.example/products/${id}?utm_source=mail#top`
      const r1 = await t.ingest(batch('visit-1-key', [
        { type: 'NAVIGATION', url: product(123), createdAt: first },
        vital('LCP', 1000, product(123), first + 1), vital('CLS', 0.05, product(123), first + 2),
        { type: 'NAVIGATION', url: product(456), createdAt: first + 10 },
        vital('LCP', 2000, product(456), first + 11),
        { type: 'RAGE_CLICK', selector: 'button#buy', count: 5, url: product(456), createdAt: first + 12 },
      ]))
      assert.equal(r1.statusCode, 200, r1.body)
      const r2 = await t.ingest(batch('visit-2-key', [
        { type: 'NAVIGATION', url: product(789), createdAt: second },
        vital('LCP', 3000, product(789), second + 1), vital('CLS', 0.3, product(789), second + 2),
        { type: 'DEAD_CLICK', selector: 'a.more', url: product(789), createdAt: second + 3 },
        { type: 'DEAD_CLICK', selector: 'a.more', url: product(789), createdAt: second + 4 },
        { type: 'ERROR', message: 'TypeError: x', url: product(789), createdAt: second + 5 },
        // A failed request counts for no page: its url is the request's.
        { type: 'HTTP_ERROR', url: 'https://shop.example/api/cart', method: 'POST', statusCode: 500, createdAt: second + 6 },
        { type: 'NAVIGATION', url: product(1011), createdAt: second + 10 },
        vital('LCP', 5000, product(1011), second + 11),
        { type: 'NAVIGATION', url: 'https://shop.example/cart', createdAt: second + 20 },
        vital('INP', 600, 'https://shop.example/cart', second + 21), vital('LCP', 2501, 'https://shop.example/cart', second + 22),
        { type: 'NAVIGATION', url: 'https://shop.example/cart', createdAt: second + 30 },
        { type: 'NAVIGATION', url: 'https://shop.example/about', createdAt: second + 40 },
        // No url: counted nowhere.
        { type: 'ERROR', message: 'TypeError: y', createdAt: second + 50 },
      ]))
      assert.equal(r2.statusCode, 200, r2.body)
    })
    after(() => t.close())

    it('lists page templates with their views, vitals, rage and dead clicks and errors, the most viewed first', async () => {
      const answer = await list()
      assert.deepEqual({ ...answer, pages: answer.pages.map((p) => p.url) }, { total: 3, limit: 50, offset: 0, pages: [PRODUCT, CART, ABOUT] })
      const [product, cart, about] = answer.pages
      assert.deepEqual(product, {
        url: PRODUCT, views: 4,
        lcp: { p75: 3000, good: 2, needsImprovement: 1, poor: 1 }, inp: none, cls: { p75: 0.3, good: 1, needsImprovement: 0, poor: 1 },
        fcp: none, ttfb: none, rageClicks: 1, deadClicks: 2, errors: 1,
      })
      assert.deepEqual(cart && [cart.views, cart.lcp, cart.inp, cart.errors], [2, { p75: 3000, good: 0, needsImprovement: 1, poor: 0 },
        { p75: 600, good: 0, needsImprovement: 0, poor: 1 }, 0])
      assert.deepEqual(about && [about.views, about.lcp, about.rageClicks], [1, none, 0])
    })

    it('sorts by a vital\'s p75, worst first, pages without its samples last by views', async () => {
      assert.deepEqual((await list('?sort=lcp')).pages.map((p) => p.url), [PRODUCT, CART, ABOUT])
      assert.deepEqual((await list('?sort=inp')).pages.map((p) => p.url), [CART, PRODUCT, ABOUT])
      assert.deepEqual((await list('?sort=cls')).pages.map((p) => p.url), [PRODUCT, CART, ABOUT])
      assert.deepEqual((await list('?sort=views')).pages.map((p) => p.url), [PRODUCT, CART, ABOUT])
    })

    it('counts the UTC days that date, from and to touch', async () => {
      const day1 = await list(`?date=${iso(first)}`)
      assert.deepEqual(day1.pages.map((p) => [p.url, p.views, p.lcp.p75, p.rageClicks]), [[PRODUCT, 2, 2000, 1]])
      const day2 = await list(`?date=${iso(second)}`)
      // Equal views: the url decides.
      assert.deepEqual(day2.pages.map((p) => [p.url, p.views, p.lcp.p75]), [[CART, 2, 3000], [PRODUCT, 2, 5000], [ABOUT, 1, null]])
      // An instant inside the first day counts all of it; `to` is exclusive, so midnight ends the day before.
      const fromMidday = await list(`?from=${new Date(first + 5 * 3_600_000).toISOString()}&to=${iso(second)}`)
      assert.deepEqual(fromMidday.pages.map((p) => [p.url, p.views]), [[PRODUCT, 2]])
      const both = await list(`?from=${iso(first)}&to=${new Date(second + 1).toISOString()}`)
      assert.deepEqual(both.pages.map((p) => [p.url, p.views, p.lcp.p75]), [[PRODUCT, 4, 3000], [CART, 2, 3000], [ABOUT, 1, null]])
      assert.equal((await list(`?from=${iso(today)}`)).total, 0)
      assert.equal((await list(`?to=${iso(first)}`)).total, 0)
    })

    it('pages with limit and offset; total counts every page in range', async () => {
      const page = await list('?limit=1&offset=1')
      assert.deepEqual([page.total, page.limit, page.offset, page.pages.map((p) => p.url)], [3, 1, 1, [CART]])
      assert.deepEqual((await list('?offset=3')).pages, [])
    })

    it('answers 400 naming the parameter, 401 without a key, and never another project\'s pages', async () => {
      for (const [query, parameter] of [['?limit=0', 'limit'], ['?offset=-1', 'offset'], ['?sort=ttfb', 'sort'], ['?date=2026-02-30', 'date'],
        ['?from=yesterday', 'from'], ['?to=2026-13-01', 'to'], [`?from=${iso(second)}&to=${iso(first)}`, 'from']] as const) {
        const res = await t.get(`/api/v1/pages${query}`)
        assert.equal(res.statusCode, 400, query)
        assert.deepEqual([json(res).code, json(res).parameter], ['invalid_parameter', parameter], query)
      }
      const anonymous = await t.app.inject({ url: '/api/v1/pages' })
      assert.equal(anonymous.statusCode, 401)
      const other = await t.newProject('Other')
      assert.deepEqual(await list('', other.apiKey), { total: 0, limit: 50, offset: 0, pages: [] })
    })

    it('is documented in the OpenAPI document from its schemas, every field described', async () => {
      interface Schema { $ref?: string; description?: string; properties?: Record<string, Schema> }
      const doc = json<{ paths: Record<string, Record<string, { operationId: string; tags: string[]; parameters: { name: string }[] }>>; components: { schemas: Record<string, Schema> } }>(
        await t.app.inject({ url: '/api/v1/openapi.json' }))
      const op = doc.paths['/api/v1/pages']?.get
      assert.deepEqual([op?.operationId, op?.tags, op?.parameters.map((p) => p.name).sort()], ['listPages', ['pages'], ['date', 'from', 'limit', 'offset', 'sort', 'to']])
      for (const name of ['PageList', 'PageReport', 'VitalSummary']) {
        const properties = Object.entries(doc.components.schemas[name]?.properties ?? {})
        assert.ok(properties.length > 0, name)
        for (const [field, schema] of properties) assert.ok(schema.description, `${name}.${field} has a description`)
      }
    })

    it('counts imported visits as ingest does, once however often they are imported', async () => {
      const other = await t.newProject('Imported')
      const at = new Date(second).toISOString()
      const line = JSON.stringify({
        id: 'imported-1', sessionKey: 'imported-key', startedAt: at, lastSeenAt: at, ip: null, country: null, userAgent: 'UA', utm: null,
        events: [
          { id: 'i1', type: 'NAVIGATION', createdAt: at, url: 'https://shop.example/orders/42' },
          { id: 'i2', type: 'WEB_VITAL', createdAt: at, url: 'https://shop.example/orders/42', name: 'TTFB', value: 900, rating: 'good' },
        ],
      })
      for (let i = 0; i < 2; i++) await importSessions(t.app.db, await getProject(t.app.db, other.id), [line], t.app.recordings)
      const answer = await list('', other.apiKey)
      assert.deepEqual(answer.pages.map((p) => [p.url, p.views, p.ttfb]), [['https://shop.example/orders/:id', 1, { p75: 900, good: 0, needsImprovement: 1, poor: 0 }]])
    })
  })
}
