import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { buildBundle, type Bundle } from '../helpers/bundle.ts'
import { cli } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts'
import { testEngines } from '../helpers/engines.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { listMaps } from '../../src/sourcemaps/service.ts'

const DEBUG_ID = '85314830-023f-4cf1-a267-535f4e37bb17'

for (const engine of testEngines()) {
  describe(`sessionwatch sourcemaps [${engine}]`, () => {
    let dir: string
    let database: TestDatabase
    let env: Record<string, string>
    let bundle: Bundle
    let project: string
    const write = (file: string, content: string | Buffer) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
      fs.writeFileSync(path.join(dir, file), content)
    }
    const list = async () => {
      const res = await cli(['sourcemaps', 'list', '--project', project, '--json'], env)
      assert.equal(res.code, 0, res.stderr)
      return JSON.parse(res.stdout) as { url: string; file: string; debugId: string | null; release: string | null; bytes: number }[]
    }

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-maps-'))
      database = await createTestDatabase(engine)
      env = { DATABASE_URL: database.url }
      bundle = await buildBundle()
      const created = await cli(['project', 'create', '--name', 'Shop', '--domain', 'shop.example', '--json'], env)
      project = (JSON.parse(created.stdout) as { id: string }).id
    })
    after(async () => {
      fs.rmSync(dir, { recursive: true, force: true })
      await database.cleanup()
    })

    it('uploads every map of a directory for the minified file beside it, and lists them', async () => {
      // Paired by its sourceMappingURL line, with a debug ID; paired by a sourceMappingURL pointing elsewhere;
      // and a map without a script, taken for the file of its name.
      write('dist/static/app-3f2a.js', `${bundle.js}//# debugId=${DEBUG_ID}\n//# sourceMappingURL=app-3f2a.js.map\n`)
      write('dist/static/app-3f2a.js.map', bundle.map)
      write('dist/static/chunk.js', `${bundle.js}//# sourceMappingURL=../maps/chunk-7b.js.map`)
      write('dist/maps/chunk-7b.js.map', bundle.map)
      write('dist/legacy/vendor.js.map', bundle.map)
      const res = await cli(['sourcemaps', 'upload', '--project', project, '--url-prefix', 'https://shop.example', '--release', 'v42',
        path.join(dir, 'dist')], env)
      assert.equal(res.code, 0, res.stderr)
      assert.match(res.stderr, /checking 3 source maps/)
      assert.match(res.stderr, new RegExp(`static/app-3f2a\\.js\\.map → https://shop\\.example/static/app-3f2a\\.js \\(.+, debug ID ${DEBUG_ID}\\)`))
      assert.match(res.stderr, /maps\/chunk-7b\.js\.map → https:\/\/shop\.example\/static\/chunk\.js/)
      assert.match(res.stdout, /^uploaded 3 source maps \(.+\) to project /)
      assert.deepEqual((await list()).map((m) => [m.url, m.file, m.debugId, m.release, m.bytes]), [
        ['https://shop.example/legacy/vendor.js', 'legacy/vendor.js.map', null, 'v42', bundle.map.length],
        ['https://shop.example/static/app-3f2a.js', 'static/app-3f2a.js.map', DEBUG_ID, 'v42', bundle.map.length],
        ['https://shop.example/static/chunk.js', 'maps/chunk-7b.js.map', null, 'v42', bundle.map.length],
      ])
      const text = await cli(['sourcemaps', 'list', '--project', project], env)
      assert.match(text.stdout, /^https:\/\/shop\.example\/legacy\/vendor\.js {2}legacy\/vendor\.js\.map {2}/)
    })

    it('checks every map first: one malformed map fails the run, naming it, and stores none of it', async () => {
      const before = await list()
      write('next/static/app.js.map', bundle.map)
      write('next/static/broken.js.map', '{"version": 3, "sources": ["a.js"]}')
      const res = await cli(['sourcemaps', 'upload', '--project', project, '--url-prefix', '~/', path.join(dir, 'next')], env)
      assert.equal(res.code, 1)
      assert.match(res.stderr, /static\/broken\.js\.map is not a valid source map: it has no "mappings" string/)
      assert.deepEqual(await list(), before)
    })

    it('deletes the map of one URL, or all of them', async () => {
      const one = await cli(['sourcemaps', 'delete', '--project', project, '--url', 'https://shop.example/static/chunk.js?v=1'], env)
      assert.equal(one.code, 0, one.stderr)
      assert.equal(one.stdout.trim(), 'deleted 1 source maps')
      const missing = await cli(['sourcemaps', 'delete', '--project', project, '--url', 'https://shop.example/static/chunk.js'], env)
      assert.equal(missing.code, 1)
      assert.match(missing.stderr, /No source map is stored for https:\/\/shop\.example\/static\/chunk\.js/)
      const both = await cli(['sourcemaps', 'delete', '--project', project, '--url', 'x', '--all'], env)
      assert.equal(both.code, 2, 'usage: --url or --all')
      const all = await cli(['sourcemaps', 'delete', '--project', project, '--all'], env)
      assert.equal(all.stdout.trim(), 'deleted 2 source maps')
      assert.match((await cli(['sourcemaps', 'list', '--project', project], env)).stdout, /^No source maps yet/)
    })
  })

  describe(`sessionwatch sourcemaps upload over HTTP, from a build machine [${engine}]`, () => {
    let dir: string
    let t: TestApp
    let endpoint: string
    let bundle: Bundle
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-maps-http-'))
      bundle = await buildBundle()
      t = await startTestApp(engine)
      endpoint = await t.app.listen({ port: 0, host: '127.0.0.1' })
      for (const file of ['static/app.js.map', 'static/vendor.js.map']) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
        fs.writeFileSync(path.join(dir, file), bundle.map)
      }
    })
    after(async () => {
      fs.rmSync(dir, { recursive: true, force: true })
      await t.close()
    })
    const urls = async () => (await listMaps(t.app.db, t.project.id)).map((m) => [m.url, m.release, m.bytes])

    it('uploads with SESSIONWATCH_ENDPOINT and SESSIONWATCH_UPLOAD_KEY, no database, saying how far it got', async () => {
      const res = await cli(['sourcemaps', 'upload', '--url-prefix', 'https://shop.example', '--release', 'v7', dir],
        { SESSIONWATCH_ENDPOINT: endpoint, SESSIONWATCH_UPLOAD_KEY: t.project.uploadKey })
      assert.equal(res.code, 0, res.stderr)
      assert.match(res.stderr, /checking 2 source maps/)
      assert.match(res.stderr, /\[1\/2\] static\/app\.js\.map → https:\/\/shop\.example\/static\/app\.js \(.+ gzipped\)/)
      assert.match(res.stderr, /\[2\/2\] static\/vendor\.js\.map/)
      assert.match(res.stdout, new RegExp(`^uploaded 2 source maps \\(.+\\) to ${endpoint.replace(/[.]/g, '\\.')}`))
      assert.deepEqual(await urls(), [
        ['https://shop.example/static/app.js', 'v7', bundle.map.length], ['https://shop.example/static/vendor.js', 'v7', bundle.map.length],
      ])
    })

    it('takes --endpoint and --key too; the API key is refused naming the upload key, and nothing is stored', async () => {
      const withApiKey = await cli(['sourcemaps', 'upload', '--endpoint', endpoint, '--key', t.project.apiKey, '--url-prefix', '~/', dir], {})
      assert.equal(withApiKey.code, 1)
      assert.match(withApiKey.stderr, /static\/app\.js\.map: the server refused it with 401: This is the project's API key \(sw_api_…\), which only reads/)
      assert.equal((await urls()).length, 2)
      const res = await cli(['sourcemaps', 'upload', '--endpoint', `${endpoint}/`, '--key', t.project.uploadKey, '--url-prefix', '~/', dir], {})
      assert.equal(res.code, 0, res.stderr)
      assert.equal((await urls()).length, 4)
    })

    it('says what is missing or wrong: no key, --project with an endpoint, a bad endpoint, a server that is not there', async () => {
      const noKey = await cli(['sourcemaps', 'upload', '--endpoint', endpoint, '--url-prefix', '~/', dir], {})
      assert.equal(noKey.code, 2)
      assert.match(noKey.stderr, /needs the project's upload key: --key KEY or SESSIONWATCH_UPLOAD_KEY/)
      const both = await cli(['sourcemaps', 'upload', '--endpoint', endpoint, '--key', t.project.uploadKey, '--project', t.project.id, '--url-prefix', '~/', dir], {})
      assert.equal(both.code, 2)
      assert.match(both.stderr, /over HTTP the upload key names the project/)
      const badUrl = await cli(['sourcemaps', 'upload', '--endpoint', 'ftp://x', '--key', t.project.uploadKey, '--url-prefix', '~/', dir], {})
      assert.equal(badUrl.code, 2)
      assert.match(badUrl.stderr, /--endpoint "ftp:\/\/x" must start with http:\/\/ or https:\/\//)
      const badEnv = await cli(['sourcemaps', 'upload', '--url-prefix', '~/', dir], { SESSIONWATCH_ENDPOINT: endpoint, SESSIONWATCH_UPLOAD_KEY: t.project.apiKey })
      assert.equal(badEnv.code, 78)
      assert.match(badEnv.stderr, /SESSIONWATCH_UPLOAD_KEY \(\d+ characters, not shown\): must be a project upload key \(sw_upl_…\)/)
      assert.ok(!badEnv.stderr.includes(t.project.apiKey), 'a key given in the wrong place is not echoed')
      const gone = await cli(['sourcemaps', 'upload', '--endpoint', 'http://127.0.0.1:9', '--key', t.project.uploadKey, '--url-prefix', '~/', dir], {})
      assert.equal(gone.code, 1)
      assert.match(gone.stderr, /cannot reach http:\/\/127\.0\.0\.1:9 \(.+\); 0 of 2 maps were uploaded/)
    })
  })
}
