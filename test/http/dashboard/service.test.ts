import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { dashboardSessions } from '../../../src/dashboard/service.ts'
import { getProject, type ProjectContext } from '../../../src/projects/service.ts'
import { startTestApp, type TestApp } from '../../helpers/app.ts'
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
      const errors = await dashboardSessions(t.app.db, project, { errors: true, limit: 2 })
      assert.deepEqual([errors.total, errors.sessions.length], [3, 2])
      const recorded = await dashboardSessions(t.app.db, project, { recording: true })
      assert.deepEqual([recorded.total, recorded.sessions.map((s) => s.recording.chunks)], [1, [1]])
    })
  })
}
