import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'

type Event = Record<string, unknown> & { type: string }

for (const engine of testEngines()) {
  describe(`ingest of rage clicks, dead clicks and web vitals [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())
    const eventsOf = async (sessionId: string) => json<{ events: Event[] }>(await t.get(`/api/v1/sessions/${sessionId}`)).events

    it('stores their own fields, captions them, and rates a vital by its value whatever the page said', async () => {
      const res = await t.ingest(batch('frustration-1', [
        { type: 'RAGE_CLICK', url: 'https://shop.example/pay', selector: 'button#pay', text: 'Pay now', count: 6 },
        { type: 'DEAD_CLICK', url: 'https://shop.example/pay', selector: 'div.menu > button', text: 'Open menu' },
        { type: 'WEB_VITAL', url: 'https://shop.example/pay', name: 'LCP', value: 4213, rating: 'good', element: 'img.hero' },
        { type: 'WEB_VITAL', url: 'https://shop.example/pay', name: 'CLS', value: 0.05 },
        { type: 'ERROR', message: 'plain' },
      ]))
      assert.equal(res.statusCode, 200, res.body)
      const [rage, dead, lcp, cls, error] = await eventsOf(json<{ sessionId: string }>(res).sessionId)
      assert.equal(rage?.message, 'Rage click ×6 on Pay now')
      assert.deepEqual([rage.url, rage.selector, rage.text, rage.count], ['https://shop.example/pay', 'button#pay', 'Pay now', 6])
      assert.equal(dead?.message, 'Dead click on Open menu')
      assert.equal(dead.text, 'Open menu')
      assert.deepEqual([lcp?.name, lcp?.value, lcp?.rating, lcp?.element, lcp?.message], ['LCP', 4213, 'poor', 'img.hero', 'LCP 4.2 s (poor)'])
      assert.deepEqual([cls?.rating, cls?.message, 'element' in (cls ?? {})], ['good', 'CLS 0.050 (good)', false])
      // Other events carry none of these fields: they are absent, not null.
      for (const field of ['selector', 'text', 'count', 'name', 'value', 'rating', 'element']) assert.equal(field in (error ?? {}), false, field)
    })

    it('keeps a message the page sent, and bounds and scrubs the texts', async () => {
      const res = await t.ingest(batch('frustration-2', [
        { type: 'DEAD_CLICK', url: 'https://shop.example/', selector: `div.${'x'.repeat(400)}`, text: 'Card 4111 1111 1111 1111 please', message: 'own caption' },
      ]))
      assert.equal(res.statusCode, 200, res.body)
      const [dead] = await eventsOf(json<{ sessionId: string }>(res).sessionId)
      assert.equal(dead?.message, 'own caption')
      assert.equal(String(dead.selector).length, 256)
      assert.match(String(dead.selector), /…\[truncated \d+ chars\]$/)
      assert.equal(dead.text, 'Card [card …1111] please')
    })

    it('answers 400 naming the field for a missing selector, count or value, and an unknown metric', async () => {
      for (const [event, field] of [
        [{ type: 'RAGE_CLICK', selector: 'a', url: 'https://x/' }, 'count'],
        [{ type: 'DEAD_CLICK', url: 'https://x/' }, 'selector'],
        [{ type: 'WEB_VITAL', name: 'LCP', url: 'https://x/' }, 'value'],
        [{ type: 'WEB_VITAL', name: 'FID', value: 3, url: 'https://x/' }, 'name'],
      ] as const) {
        const res = await t.ingest(batch(`frustration-bad-${field}`, [event]))
        assert.equal(res.statusCode, 400, res.body)
        assert.match(String(json(res).message), new RegExp(field), res.body)
      }
    })
  })
}
