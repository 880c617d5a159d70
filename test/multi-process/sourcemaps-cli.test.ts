import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { buildBundle, type Bundle } from '../helpers/bundle.ts'
import { cli } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts'
import { testEngines } from '../helpers/engines.ts'

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
}
