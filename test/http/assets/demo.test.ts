import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { claimOnce } from '../../../src/db/meta.ts'
import { FIRST_PROJECT_CLAIM } from '../../../src/projects/service.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'

/** What /demo, /demo.js and the home page say: served or not. */
async function demoServed(t: TestApp): Promise<boolean> {
  const page = await t.app.inject({ url: '/demo' })
  const script = await t.app.inject({ url: '/demo.js' })
  const home = await t.app.inject({ url: '/' })
  assert.equal(page.statusCode, script.statusCode)
  assert.equal(home.body.includes('href="/demo"'), page.statusCode === 200, 'the home page links the demo only when it is served')
  if (page.statusCode === 404) {
    assert.equal(json(page).code, 'route_not_found')
    assert.match(json(page).message as string, /DEMO=true/)
    assert.doesNotMatch(script.body, /sw_ing_/, 'no ingest key handed out')
  }
  return page.statusCode === 200
}

for (const engine of testEngines()) {
  describe(`/demo is served only when DEMO=true or the first start's project is alone [${engine}]`, () => {
    const apps: TestApp[] = []
    after(() => Promise.all(apps.map((t) => t.close())))
    const start = async (env: Record<string, string> = {}) => {
      const t = await startTestApp(engine, env)
      apps.push(t)
      return t
    }

    it('is off for a project the first start did not create, on while the first start\'s is alone, off once another exists', async () => {
      const t = await start()
      assert.equal(await demoServed(t), false, 'a project created by the CLI or the dashboard')
      await claimOnce(t.app.db, FIRST_PROJECT_CLAIM, new Date().toISOString())
      assert.equal(await demoServed(t), true, 'the first start\'s project, alone')
      assert.match((await t.app.inject({ url: '/demo.js' })).body, new RegExp(t.project.ingestKey))
      await t.newProject('Second')
      assert.equal(await demoServed(t), false, 'a second project exists')
    })

    it('DEMO=true serves it whatever the projects; DEMO=false never', async () => {
      const on = await start({ DEMO: 'true' })
      await on.newProject('Second')
      assert.equal(await demoServed(on), true)
      const off = await start({ DEMO: 'false' })
      await claimOnce(off.app.db, FIRST_PROJECT_CLAIM, new Date().toISOString())
      assert.equal(await demoServed(off), false)
    })
  })
}
