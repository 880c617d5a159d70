/** The requests real server Sentry SDKs made (test/fixtures/sentry/<sdk>, recorded by its record kit), replayed on both engines. */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { recordedRequests, replayRecorded, SERVER_SDKS } from '../../helpers/sentry.ts'

/** What the project holds: each visit's and each issue's event counts, by id (a resend may reorder the lists). */
async function stored(t: TestApp): Promise<unknown> {
  const sessions = json<{ sessions: { id: string; events: unknown }[] }>(await t.get('/api/v1/sessions?limit=100')).sessions
  const issues = json<{ issues: { id: string; events: number; sessions: number }[] }>(await t.get('/api/v1/issues?limit=100')).issues
  const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)
  return { sessions: sessions.sort(byId).map((s) => [s.id, s.events]), issues: issues.sort(byId).map((i) => [i.id, i.events, i.sessions]) }
}

for (const engine of testEngines()) {
  for (const sdk of SERVER_SDKS) {
    describe(`recorded ${sdk} SDK requests [${engine}]`, () => {
      let t: TestApp
      before(async () => { t = await startTestApp(engine) })
      after(() => t.close())

      it('each replays with 200, and a resend stores nothing twice', async () => {
        const replayAll = async () => {
          for (const request of recordedRequests(sdk)) {
            const res = await replayRecorded(t, sdk, request)
            assert.equal(res.statusCode, 200, `${request.file}: ${res.body}`)
          }
        }
        await replayAll()
        const once = await stored(t)
        assert.notDeepEqual(once, { sessions: [], issues: [] })
        await replayAll()
        assert.deepEqual(await stored(t), once)
      })
    })
  }
}
