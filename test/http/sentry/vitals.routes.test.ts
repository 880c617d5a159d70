/**
 * What @sentry/browser sent with tracing and replay on (test/fixtures/sentry/vitals, recorded by the browser test
 * frustration.test.ts), replayed on both engines: web vitals, rage and dead clicks in the replay's visit.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { envelope, postEnvelope } from '../../helpers/sentry.ts'

const fixture = (name: string): Buffer => fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'sentry', 'vitals', `${name}.envelope`))

interface Event { id: string; type: string; name?: string; value?: number; rating?: string; url?: string; element?: string; selector?: string; count?: number; message: string | null }

for (const engine of testEngines()) {
  describe(`Sentry web vitals and frustrated clicks [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())

    const send = async (body: Buffer) => {
      const res = await postEnvelope(t, body, { headers: { 'content-type': undefined } })
      assert.equal(res.statusCode, 200, res.body)
      return json<{ id?: string; stored: Record<string, number>; dropped: Record<string, number> }>(res)
    }
    const visitOf = async (replayId: string): Promise<Event[]> => {
      const list = json<{ sessions: { id: string; sessionKey: string }[] }>(await t.get('/api/v1/sessions?limit=200'))
      const visit = list.sessions.find((s) => s.sessionKey === `sentry-r-${replayId}`)
      assert.ok(visit, `the visit of replay ${replayId}`)
      return json<{ events: Event[] }>(await t.get(`/api/v1/sessions/${visit.id}`)).events
    }
    const summary = (events: Event[]) => events.filter((e) => e.type !== 'SLOW_REQUEST')
      .map((e) => (e.type === 'WEB_VITAL' ? `${e.name} ${e.rating} ${e.url ?? '-'}` : `${e.type} ${e.selector} ${e.url ?? '-'}`)).sort()

    it('the static lifecycle: a pageload transaction\'s vitals and its INP span, a rage and a dead click, all in the replay\'s visit', async () => {
      assert.deepEqual(await send(fixture('static-transaction')), { id: '3617d81fbad140e68908214e86534f38', stored: { transaction: 1 }, dropped: {} })
      assert.deepEqual(await send(fixture('static-inp-span')), { stored: { span: 1 }, dropped: {} })
      for (const name of ['static-rage-click', 'static-dead-click']) assert.deepEqual((await send(fixture(name))).stored, { replay_recording: 1 })
      const page = 'http://localhost:35161/orders/42?lifecycle=static'
      const events = await visitOf('84f7f2790e7d48a3b1c6faae4d9dc207')
      assert.deepEqual(summary(events), [
        `CLS good ${page}`, `DEAD_CLICK button.btn.ghost ${page}`, `FCP good ${page}`, `INP needs-improvement ${page}`, `LCP good ${page}`,
        `RAGE_CLICK button#pay ${page}`, `TTFB good ${page}`,
      ].sort())
      assert.equal(events.find((e) => e.name === 'INP')?.message, 'INP 320 ms (needs-improvement)')
      assert.equal(events.find((e) => e.type === 'RAGE_CLICK')?.count, 5)
    })

    it('the streaming lifecycle (11\'s default): vitals from the pageload, LCP, CLS and INP spans, on the page load\'s URL', async () => {
      for (const name of ['stream-pageload-spans', 'stream-lcp-span', 'stream-cls-span']) assert.deepEqual(await send(fixture(name)), { stored: { span: 1 }, dropped: {} })
      for (const name of ['stream-rage-click', 'stream-dead-click']) assert.deepEqual((await send(fixture(name))).stored, { replay_recording: 1 })
      const page = 'http://localhost:35161/orders/43?lifecycle=stream'
      assert.deepEqual(summary(await visitOf('472459451306415a80530548e8e07869')), [
        `CLS good ${page}`, `DEAD_CLICK button.btn.ghost ${page}`, `FCP good ${page}`, `INP needs-improvement ${page}`, `LCP good ${page}`,
        `RAGE_CLICK button#pay ${page}`, `TTFB good ${page}`,
      ].sort())
    })

    it('stores nothing twice when the SDK resends, and drops transactions and spans without vitals', async () => {
      const before = (await visitOf('472459451306415a80530548e8e07869')).length
      for (const name of ['stream-pageload-spans', 'stream-lcp-span', 'stream-cls-span', 'stream-rage-click']) await send(fixture(name))
      assert.equal((await visitOf('472459451306415a80530548e8e07869')).length, before)
      const navigation = envelope({}, [
        [{ type: 'transaction' }, { type: 'transaction', contexts: { trace: { op: 'navigation', span_id: 'a1b2c3d4e5f60718' } }, measurements: { fcp: { value: 10 } } }],
        [{ type: 'span', content_type: 'application/vnd.sentry.items.span.v2+json' }, { version: 2, items: [{ span_id: 'b1', attributes: { 'sentry.op': { value: 'http.client' } } }] }],
      ])
      assert.deepEqual(await send(navigation), { stored: {}, dropped: { transaction: 1, span: 1 } })
    })
  })
}
