import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { startTestApp } from '../../helpers/app.ts'

const root = path.resolve(import.meta.dirname, '..', '..', '..')

describe('npm run build', () => {
  // A fresh build, never the dist/ a developer may have left stale; inside the repository, because the
  // service bundle it writes finds its npm packages in node_modules from where it lies.
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true })
  const out = fs.mkdtempSync(path.join(root, 'dist', 'test-build-'))
  after(() => { fs.rmSync(out, { recursive: true, force: true }) })
  before(() => {
    const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs'), '--force', '--outdir', out], { encoding: 'utf8' })
    assert.equal(build.status, 0, build.stderr)
  })

  it('writes dist/sdk.js and dist/sdk.mjs byte for byte as the service serves /sdk.js and /sdk.mjs', async () => {
    const t = await startTestApp('sqlite')
    try {
      for (const file of ['sdk.js', 'sdk.mjs']) {
        const served = await t.app.inject({ method: 'GET', url: `/${file}` })
        assert.equal(served.statusCode, 200)
        assert.ok(served.body.length > 1000, `/${file} is the SDK`)
        assert.equal(fs.readFileSync(path.join(out, file), 'utf8'), served.body, `${file} as built and as served`)
      }
    } finally {
      await t.close()
    }
  })

  it('bundles the service so that it loads pg only on PostgreSQL and TypeBox\'s compiler only to import: neither at its start', () => {
    const bundle = fs.readFileSync(path.join(out, 'sessionwatch.mjs'), 'utf8')
    for (const name of ['pg', 'typebox/compile']) {
      assert.doesNotMatch(bundle, new RegExp(`^import\\b[^(\\n]*["']${name}["'];?$`, 'm'), `no static import of ${name}`)
      assert.match(bundle, new RegExp(`\\bimport\\(["']${name}["']\\)`), `${name} imported where it is used`)
    }
    assert.match(bundle, /^import .* from "kysely";$/m, 'the test reads static imports as esbuild writes them')
  })
})
