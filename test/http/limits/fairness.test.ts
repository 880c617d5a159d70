import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { WRITER_MAX_QUEUED_PER_PROJECT } from '../../../src/visits/limits.ts'
import { startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'

const events = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'CLICK', message: `click ${i}` }))

for (const engine of testEngines()) {
  describe(`two projects side by side, one flooding [${engine}]`, () => {
    let t: TestApp
    // No rate limit: what keeps the other project's ingest going here is the writer alone.
    before(async () => { t = await startTestApp(engine, { INGEST_RATE_LIMIT: '0' }) })
    after(() => t.close())

    it('commits the other project\'s batches while the flood waits, and refuses only the flood beyond its own queue', async () => {
      const quiet = await t.newProject('Quiet')
      const send = (key: string, sessionKey: string, n: number) => t.ingest(batch(sessionKey, events(n)), { headers: { 'x-ingest-key': key } })
      for (let i = 0; i < 3; i++) assert.equal((await send(quiet.ingestKey, `quiet-warm-${i}`, 5)).statusCode, 200)

      // More batches at once than one project may have waiting: the writer's queue of the flooding project fills up.
      const floodSize = WRITER_MAX_QUEUED_PER_PROJECT + 200
      let unanswered = floodSize
      const flood = Array.from({ length: floodSize }, (_, i) => send(t.project.ingestKey, `flood-${i % 100}-visit`, 20).then((res) => {
        unanswered--
        return res.statusCode
      }))
      const quietAnswers: { status: number; ms: number; floodWaiting: number }[] = []
      for (let i = 0; i < 5; i++) {
        const sent = performance.now()
        const res = await send(quiet.ingestKey, `quiet-flood-${i}`, 5)
        quietAnswers.push({ status: res.statusCode, ms: performance.now() - sent, floodWaiting: unanswered })
      }
      const floodStatuses = await Promise.all(flood)

      assert.ok(quietAnswers.every((a) => a.status === 200), `the quiet project is never refused: ${JSON.stringify(quietAnswers)}`)
      assert.ok(floodStatuses.every((s) => s === 200 || s === 503))
      assert.ok(floodStatuses.filter((s) => s === 503).length >= 1, 'the flood beyond its own queue is refused 503')
      // Where the writer is what the flood waits for (PostgreSQL: a group is a chain of round trips, and requests are read
      // faster than they are written), the quiet project's batches jump the flood's queue. The bound is on order, counted
      // in the same run, so it does not depend on this machine's speed or load: its first batch is committed while at
      // least a quarter of the flood still waits (behind one shared queue it came last, with none waiting). On SQLite one process writes as fast as it reads requests, so the flood
      // never waits in the writer: what it holds up is the one thread, in the order requests arrive, which the rate limit
      // bounds (test/http/limits/limits.test.ts).
      if (engine === 'postgres') {
        const first = quietAnswers[0]
        assert.ok(first && first.floodWaiting >= floodSize / 4, `answered with ${String(first?.floodWaiting)} of ${floodSize} flood batches still waiting`)
      }
    })
  })
}
