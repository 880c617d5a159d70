/** listSessions' `vital=` filter, and `type=` with the frustration types, on both engines. */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'
import { foundIds, sorted } from './search-helpers.ts'

const PAGE = 'https://shop.example/orders/7'

for (const engine of testEngines()) {
  describe(`listSessions by web vital and frustration type [${engine}]`, () => {
    let t: TestApp
    const ids = { slowLcp: '', slowBoth: '', fast: '' }
    const send = async (key: string, events: Record<string, unknown>[]) => {
      const res = await t.ingest(batch(key, events.map((e) => ({ url: PAGE, ...e }))))
      assert.equal(res.statusCode, 200, res.body)
      return json<{ sessionId: string }>(res).sessionId
    }
    const found = (query: string): Promise<string[]> => foundIds(t, query)

    before(async () => {
      t = await startTestApp(engine)
      ids.slowLcp = await send('vitals-visit-1', [
        { type: 'WEB_VITAL', name: 'LCP', value: 4500 },
        { type: 'WEB_VITAL', name: 'INP', value: 120 },
        { type: 'RAGE_CLICK', selector: 'button#pay', count: 4 },
      ])
      ids.slowBoth = await send('vitals-visit-2', [
        { type: 'WEB_VITAL', name: 'LCP', value: 5200 },
        { type: 'WEB_VITAL', name: 'INP', value: 800 },
        { type: 'DEAD_CLICK', selector: 'a.help' },
      ])
      // A page may claim any rating: the service rates the value, so this LCP is good.
      ids.fast = await send('vitals-visit-3', [{ type: 'WEB_VITAL', name: 'LCP', value: 900, rating: 'poor' }, { type: 'WEB_VITAL', name: 'CLS', value: 0.15 }])
    })
    after(() => t.close())

    it('vital=METRIC:RATING finds the visits that had it, rated by the service', async () => {
      assert.deepEqual(await found('vital=LCP:poor'), sorted(ids.slowLcp, ids.slowBoth))
      assert.deepEqual(await found('vital=LCP:good'), [ids.fast])
      assert.deepEqual(await found('vital=CLS:needs-improvement'), [ids.fast])
      assert.deepEqual(await found('vital=TTFB:poor'), [])
    })

    it('repeated, every one must hold; combined with type= and a range as any filter', async () => {
      assert.deepEqual(await found('vital=LCP:poor&vital=INP:poor'), [ids.slowBoth])
      assert.deepEqual(await found('vital=LCP:poor&vital=LCP:poor'), sorted(ids.slowLcp, ids.slowBoth))
      assert.deepEqual(await found('vital=LCP:poor&type=RAGE_CLICK'), [ids.slowLcp])
      assert.deepEqual(await found(`vital=LCP:poor&from=${new Date(Date.now() - 3_600_000).toISOString()}`), sorted(ids.slowLcp, ids.slowBoth))
    })

    it('type=RAGE_CLICK and type=DEAD_CLICK work as any type', async () => {
      assert.deepEqual(await found('type=RAGE_CLICK'), [ids.slowLcp])
      assert.deepEqual(await found('type=DEAD_CLICK'), [ids.slowBoth])
      assert.deepEqual(await found('type=WEB_VITAL'), sorted(ids.slowLcp, ids.slowBoth, ids.fast))
    })

    it('a bad vital answers 400 naming the parameter and listing the metrics and ratings', async () => {
      for (const value of ['LCP:bad', 'FID:poor', 'lcp:poor', 'LCP']) {
        const res = await t.get(`/api/v1/sessions?vital=${encodeURIComponent(value)}`)
        assert.equal(res.statusCode, 400, value)
        const body = json<{ code: string; parameter: string; message: string }>(res)
        assert.deepEqual([body.code, body.parameter], ['invalid_parameter', 'vital'], value)
        assert.equal(body.message, `vital must be METRIC:RATING, METRIC one of LCP, INP, CLS, FCP, TTFB and RATING one of good, needs-improvement, poor (got ${JSON.stringify(value)})`)
      }
    })
  })
}
