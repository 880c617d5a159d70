import assert from 'node:assert/strict'
import path from 'node:path'
import { describe, it } from 'node:test'
import { jobName } from '../../../scripts/lib/test-jobs.ts'
import { needsChromium, needsPostgres, plan, runsPerEngine, selectTestFiles, SPLIT_SECONDS, timesItself } from '../../../scripts/test-files.ts'

const root = path.resolve(import.meta.dirname, '..', '..', '..')
const testDir = path.join(root, 'test')
const chromium = (file: string) => needsChromium(path.join(root, file), testDir)

describe('npm test: file selection', () => {
  it('runs the files whose path contains a filter', () => {
    const files = selectTestFiles(root, ['dashboard'])
    assert.ok(files.includes(path.join('test', 'browser', 'dashboard', 'e2e.test.ts')))
    assert.ok(files.every((f) => f.includes('dashboard')))
  })

  it('gives Chromium to every browser test, wherever it lives: the dashboard one too', () => {
    for (const file of ['test/browser/dashboard/e2e.test.ts', 'test/browser/sdk/e2e.test.ts', 'test/browser/sdk/recording.e2e.test.ts']) {
      assert.ok(chromium(file), file)
    }
  })

  it('does not ask for Chromium for tests that drive no browser, even under test/browser', () => {
    for (const file of ['test/cli/cli.test.ts', 'test/unit/browser/sdk/transport.test.ts', 'test/http/dashboard/routes.test.ts']) {
      assert.ok(!chromium(file), file)
    }
  })

  it('follows relative imports inside test/ only, through helpers and cycles', () => {
    const sources: Record<string, string> = {
      '/r/test/x/a.test.ts': "import { go } from '../helpers/h.ts'\nimport { y } from '../../src/app.ts'",
      '/r/test/helpers/h.ts': "import './h2.ts'\nexport const go = () => import('playwright-core')",
      '/r/test/helpers/h2.ts': "import './h.ts'",
      '/r/test/x/b.test.ts': "import '../helpers/h2.ts'\nimport '../../src/app.ts'",
      '/r/src/app.ts': "import 'playwright-core'",
    }
    const read = (f: string) => sources[f] ?? ''
    assert.equal(needsChromium('/r/test/x/a.test.ts', '/r/test', read), true)
    assert.equal(needsChromium('/r/test/x/b.test.ts', '/r/test', read), true, 'h2 → h → playwright-core')
    sources['/r/test/helpers/h.ts'] = "import './h2.ts'"
    assert.equal(needsChromium('/r/test/x/b.test.ts', '/r/test', read), false, 'a cycle ends; src/ is not followed')
  })

  it('starts PostgreSQL only for files that reach its helper', () => {
    const postgres = (file: string) => needsPostgres(path.join(root, file), testDir)
    for (const file of ['test/store/visits/store.test.ts', 'test/http/ingest/routes.test.ts', 'test/multi-process/postgres-restart.test.ts']) {
      assert.ok(postgres(file), file)
    }
    for (const file of ['test/unit/config.test.ts', 'test/unit/scripts/test-files.test.ts']) assert.ok(!postgres(file), file)
  })

  it('starts the longest jobs first: as timed last time, else as guessed from their tier and size', () => {
    const files = ['test/unit/a.test.ts', 'test/http/b.test.ts', 'test/multi-process/c.test.ts', 'test/http/d.test.ts'].map((f) => path.join(...f.split('/')))
    const [unit, http, multi, timed] = files as [string, string, string, string]
    const order = (took: Record<string, number>, size = (_f: string) => 1000) => plan(files, ['sqlite'], took, size, () => true).map((j) => j.file)
    assert.deepEqual(order({}), [multi, http, timed, unit], 'by tier alone, in their given order within one')
    assert.deepEqual(order({ [timed]: 100, [multi]: 20 }), [timed, multi, http, unit])
    assert.deepEqual(order({}, (f) => (f === timed ? 5000 : 1000)), [multi, timed, http, unit], 'a bigger file of a tier first')
  })

  it(`runs a file taking ${SPLIT_SECONDS} s or more once per engine, when it loops over the engines`, () => {
    const [long, short, alone] = ['test/multi-process/long.test.ts', 'test/http/short.test.ts', 'test/http/alone.test.ts']
    const took = { [long]: 3 * SPLIT_SECONDS, [short]: SPLIT_SECONDS - 1, [alone]: 2 * SPLIT_SECONDS }
    const jobs = plan([long, short, alone], ['sqlite', 'postgres'], took, () => 1000, (f) => f !== alone).map(jobName)
    assert.deepEqual(jobs, [alone, `${long} [sqlite]`, `${long} [postgres]`, short], 'each engine\'s job as long as half the file')
    assert.deepEqual(plan([long], ['postgres'], took, () => 1000, () => true), [{ file: long }], 'one engine: nothing to split')
  })

  it('knows the files that loop over the engines', () => {
    assert.ok(runsPerEngine(path.join(root, 'test/cli/cli.test.ts'), testDir))
    assert.ok(!runsPerEngine(path.join(root, 'test/unit/config.test.ts'), testDir))
  })

  it('knows the files that hold code to a time budget, which run alone', () => {
    for (const file of ['test/unit/events/normalize.test.ts', 'test/http/ingest/hostile-text.test.ts']) assert.ok(timesItself(path.join(root, file), testDir), file)
    assert.ok(!timesItself(path.join(root, 'test/unit/config.test.ts'), testDir))
  })
})
