import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { MAX_HEADLINE_LENGTH } from '../../../src/dashboard/limits.ts'
import { dashboardSessions } from '../../../src/dashboard/service.ts'
import { getProject, type ProjectContext } from '../../../src/projects/service.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'
import { chunkUpload, rrwebEvents } from '../../helpers/recording.ts'

for (const engine of testEngines()) {
  describe(`dashboard sessions list [${engine}]`, () => {
    let t: TestApp
    let project: ProjectContext
    before(async () => {
      t = await startTestApp(engine)
      project = await getProject(t.app.db, t.project.id)
      for (let i = 0; i < 3; i++) await t.ingest(batch(`svc-error-${i}-1`, [{ type: 'ERROR', message: 'x' }]))
      await t.ingest(batch('svc-calm-1', [{ type: 'CLICK', message: 'ok' }]))
      await t.ingest(batch('svc-rec-1', [], { recording: [chunkUpload('c', rrwebEvents(Date.now() - 1000))] }))
    })
    after(() => t.close())

    it('counts a filtered list exactly, like the read API', async () => {
      const all = await dashboardSessions(t.app.db, project, {})
      assert.deepEqual([all.total, all.sessions.length], [5, 5])
      const errors = await dashboardSessions(t.app.db, project, { errors: 'true', limit: 2 })
      assert.deepEqual([errors.total, errors.sessions.length], [3, 2])
      const recorded = await dashboardSessions(t.app.db, project, { recording: 'true' })
      assert.deepEqual([recorded.total, recorded.sessions.map((s) => s.recording.chunks)], [1, [1]])
    })

    it('gives each row the first error and the first report of its visit, what the list says broke', async () => {
      const long = 'x'.repeat(MAX_HEADLINE_LENGTH + 50)
      const at = Date.now() - 10_000
      const { sessionId } = json<{ sessionId: string }>(await t.ingest(batch('svc-headline-1', [
        { type: 'CLICK', message: 'Pay', createdAt: at },
        { type: 'HTTP_ERROR', url: '/api/pay', method: 'POST', statusCode: 502, createdAt: at + 1 },
        { type: 'USER_REPORT', message: 'The pay button does nothing', createdAt: at + 2 },
        { type: 'ERROR', message: 'later error', createdAt: at + 3 },
        { type: 'USER_REPORT', message: 'second report', createdAt: at + 4 },
      ], { user: { id: 'headline-ann' } })))
      await t.ingest(batch('svc-headline-2', [{ type: 'ERROR', message: long }]))
      const page = await dashboardSessions(t.app.db, project, { user: 'headline-ann' })
      const row = page.sessions[0]
      assert.equal(row?.id, sessionId)
      assert.deepEqual(row.firstError, { type: 'HTTP_ERROR', message: null, url: '/api/pay', method: 'POST', statusCode: 502 })
      assert.deepEqual(row.firstReport, { type: 'USER_REPORT', message: 'The pay button does nothing', url: null, method: null, statusCode: null })
      const clipped = (await dashboardSessions(t.app.db, project, { q: 'xxxxxxxx' })).sessions[0]
      assert.equal(clipped?.firstError?.message?.length, MAX_HEADLINE_LENGTH, 'a long message is cut to a line')
      const calm = (await dashboardSessions(t.app.db, project, {})).sessions.find((s) => s.events.errors === 0 && !s.recording.available)
      assert.deepEqual([calm?.firstError, calm?.firstReport], [null, null])
    })

    it('heads a row with a rage or dead click like an error, whichever came first, with its caption', async () => {
      const at = Date.now() - 20_000
      const rage = { type: 'RAGE_CLICK', selector: 'button#pay', text: 'Pay now', count: 6, url: 'https://shop.example/checkout' }
      await t.ingest(batch('svc-rage-1', [{ ...rage, createdAt: at }, { type: 'ERROR', message: 'after the clicks', createdAt: at + 1 }],
        { user: { id: 'frustrated-1' } }))
      await t.ingest(batch('svc-rage-2', [{ type: 'ERROR', message: 'before the clicks', createdAt: at }, { ...rage, createdAt: at + 1 }],
        { user: { id: 'frustrated-2' } }))
      // No error at all: the list's counters do not name it, its session_terms do.
      await t.ingest(batch('svc-dead-1', [{ type: 'CLICK', message: 'Open menu', createdAt: at },
        { type: 'DEAD_CLICK', selector: 'div.menu', text: 'Open menu', createdAt: at + 1 }], { user: { id: 'frustrated-3' } }))
      const first = async (user: string) => (await dashboardSessions(t.app.db, project, { user })).sessions[0]?.firstError
      assert.deepEqual(await first('frustrated-1'),
        { type: 'RAGE_CLICK', message: 'Rage click ×6 on Pay now', url: 'https://shop.example/checkout', method: null, statusCode: null })
      assert.equal((await first('frustrated-2'))?.message, 'before the clicks')
      assert.deepEqual(await first('frustrated-3'), { type: 'DEAD_CLICK', message: 'Dead click on Open menu', url: null, method: null, statusCode: null })
      assert.equal((await dashboardSessions(t.app.db, project, { type: 'DEAD_CLICK' })).total, 1, 'the Dead clicks filter finds it')
    })

    it('takes every search parameter of the read API, the same schema', async () => {
      const reports = await dashboardSessions(t.app.db, project, { type: 'USER_REPORT' })
      assert.equal(reports.total, 1)
      assert.equal((await dashboardSessions(t.app.db, project, { status: '5xx', user: 'headline-ann' })).total, 1)
      assert.equal((await dashboardSessions(t.app.db, project, { status: '4xx' })).total, 0)
      assert.equal((await dashboardSessions(t.app.db, project, { url: 'nowhere-at-all' })).total, 0)
    })
  })
}
