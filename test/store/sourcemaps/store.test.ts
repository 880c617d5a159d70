import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, it } from 'node:test'
import { parseStack } from '../../../src/sourcemaps/stack.ts'
import { createProject } from '../../../src/projects/service.ts'
import { createResolver } from '../../../src/sourcemaps/resolve.ts'
import { checkUploads, deleteMaps, listMaps, storeUploads, type MapUpload } from '../../../src/sourcemaps/service.ts'
import { findByDebugIds, findByUrls, sourceMapData } from '../../../src/sourcemaps/store.ts'
import { buildBundle, type Bundle } from '../../helpers/bundle.ts'
import { openTestDatabase } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'

const URL = 'https://shop.example/static/app.js'
const DEBUG_ID = '85314830-023f-4cf1-a267-535f4e37bb17'

for (const engine of testEngines()) {
  describe(`source maps store and resolver [${engine}]`, () => {
    let handle: Awaited<ReturnType<typeof openTestDatabase>>
    let bundle: Bundle
    let projectId: string
    let otherId: string
    const queries: string[] = []
    before(async () => {
      handle = await openTestDatabase(engine, { onQuery: (q) => { queries.push(q.sql) } })
      bundle = await buildBundle()
      projectId = (await createProject(handle.db, { name: 'Maps', domain: 'shop.example' })).id
      otherId = (await createProject(handle.db, { name: 'Other', domain: 'other.example' })).id
    })
    after(() => handle.dispose())

    const map = (url: string, extra: Partial<MapUpload> = {}): MapUpload => ({ url, file: 'app.js.map', data: bundle.map, ...extra })
    const store = async (project: string, uploads: MapUpload[], now = Date.now()) =>
      storeUploads(handle.db, null, project, await checkUploads(uploads), now)
    const sqlOn = (table: string, column: string) => queries.filter((q) => q.includes(`from "${table}"`) && q.includes(column)).length

    it('replaces the map of a URL with a newer upload; other URLs and projects keep theirs', async () => {
      const [first] = await store(projectId, [map(URL, { release: 'r1' })], 1000)
      await store(otherId, [map(URL)])
      await store(projectId, [map('~/static/vendor.js')])
      const [second] = await store(projectId, [map(URL, { release: 'r2', file: 'static/app.js.map' })], 2000)
      assert.ok(first && second)
      assert.notEqual(second.id, first.id)
      const mine = (await listMaps(handle.db, projectId)).filter((m) => m.url === URL)
      assert.deepEqual(mine, [second])
      assert.equal(mine[0]?.release, 'r2')
      assert.equal(await sourceMapData(handle.db, projectId, first.id), null, 'the older map is gone')
      assert.ok(await sourceMapData(handle.db, projectId, second.id))
      assert.equal((await listMaps(handle.db, otherId)).length, 1)
      assert.deepEqual((await findByUrls(handle.db, projectId, [URL, '~/static/vendor.js', '~/nope'])).map((m) => m.url).sort(),
        ['https://shop.example/static/app.js', '~/static/vendor.js'])
    })

    it('stores a batch all or nothing: one bad map stores none of it', async () => {
      const before = await listMaps(handle.db, projectId)
      await assert.rejects(store(projectId, [map('https://shop.example/static/ok.js'), map('https://shop.example/static/bad.js', { data: Buffer.from('{}'), file: 'bad.js.map' })]),
        /bad\.js\.map is not a valid source map/)
      await assert.rejects(store(projectId, [map('https://shop.example/static/twice.js', { file: 'a.map' }), map('https://shop.example/static/twice.js?v=2', { file: 'b.map' })]),
        /a\.map and b\.map are both for https:\/\/shop\.example\/static\/twice\.js/)
      assert.deepEqual(await listMaps(handle.db, projectId), before)
    })

    it('finds maps by debug ID, written in any case, with or without dashes', async () => {
      await store(projectId, [map('https://shop.example/static/id.js', { debugId: DEBUG_ID.toUpperCase().replace(/-/g, '') })])
      const found = await findByDebugIds(handle.db, projectId, [DEBUG_ID])
      assert.deepEqual(found.map((m) => m.url), ['https://shop.example/static/id.js'])
      assert.deepEqual(await findByDebugIds(handle.db, otherId, [DEBUG_ID]), [])
    })

    it('deletes one URL\'s map, or every map of a project', async () => {
      await store(projectId, [map('https://shop.example/static/gone.js')])
      assert.equal(await deleteMaps(handle.db, null, projectId, 'https://shop.example/static/gone.js?v=1'), 1)
      assert.equal(await deleteMaps(handle.db, null, projectId, 'https://shop.example/static/gone.js'), 0)
      const left = (await listMaps(handle.db, projectId)).length
      assert.ok(left > 0)
      assert.equal(await deleteMaps(handle.db, null, projectId, null), left)
      assert.deepEqual(await listMaps(handle.db, projectId), [])
      assert.equal((await listMaps(handle.db, otherId)).length, 1, 'another project keeps its maps')
    })

    it('asks once whether a project without maps has any, for 201 reads', async () => {
      const bare = (await createProject(handle.db, { name: 'Bare', domain: 'bare.example' })).id
      const resolver = createResolver(handle.db, { cacheBytes: 64 * 1024 * 1024 })
      const frames = parseStack(bundle.stack('https://shop.example/static/none.js'))
      const before = queries.filter((q) => q.includes('from "source_maps"')).length
      const answers = await Promise.all(Array.from({ length: 200 }, () => resolver.resolveFrames(bare, frames)))
      await resolver.resolveFrames(bare, frames)
      assert.ok(answers.every((a) => a.every((f) => !f.mapped)))
      assert.equal(queries.filter((q) => q.includes('from "source_maps"')).length - before, 1)
    })

    it('asks the database once for 200 events on an unmapped script, and sees another process\'s upload once the lookup expires', async () => {
      const url = 'https://shop.example/static/late.js'
      // A project with some map: its scripts are looked up one by one.
      await store(projectId, [map('https://shop.example/static/other.js')])
      const resolver = createResolver(handle.db, { cacheBytes: 64 * 1024 * 1024, lookupTtlMs: 300 })
      const frames = parseStack(bundle.stack(url))
      const lookups = sqlOn('source_maps', '"url" in')
      const answers = await Promise.all(Array.from({ length: 200 }, () => resolver.resolveFrames(projectId, frames)))
      assert.ok(answers.every((a) => a.every((f) => !f.mapped)))
      await resolver.resolveFrames(projectId, frames)
      assert.equal(sqlOn('source_maps', '"url" in') - lookups, 1, 'one lookup for 201 reads')

      // Stored by another process: this one learns of it when its remembered "no map" expires.
      await store(projectId, [map(url)])
      assert.equal((await resolver.resolveFrames(projectId, frames))[0]?.mapped, false)
      // The rule is that the remembered lookup expires after its 300 ms.
      await sleep(350)
      assert.equal((await resolver.resolveFrames(projectId, frames))[0]?.function, 'applyCoupon')
    })

    it('forgets at once what an upload or delete in its own process changes', async () => {
      const url = 'https://shop.example/static/own.js'
      const resolver = createResolver(handle.db, { cacheBytes: 64 * 1024 * 1024 })
      const frames = parseStack(bundle.stack(url))
      assert.equal((await resolver.resolveFrames(projectId, frames))[0]?.mapped, false)
      await storeUploads(handle.db, resolver, projectId, await checkUploads([map(url)]))
      assert.equal((await resolver.resolveFrames(projectId, frames))[0]?.mapped, true)
      await deleteMaps(handle.db, resolver, projectId, url)
      assert.equal((await resolver.resolveFrames(projectId, frames))[0]?.mapped, false)
    })

    it('parses a map once for concurrent reads, and keeps no more parsed maps than its byte bound', async () => {
      const url = 'https://shop.example/static/cached.js'
      await store(projectId, [map(url)])
      const frames = parseStack(bundle.stack(url))
      const loads = () => sqlOn('source_maps', 'select "data"')
      const cached = createResolver(handle.db, { cacheBytes: 64 * 1024 * 1024 })
      const before = loads()
      await Promise.all(Array.from({ length: 50 }, () => cached.resolveFrames(projectId, frames)))
      await cached.resolveFrames(projectId, frames)
      assert.equal(loads() - before, 1, 'one load for every read')
      const unbounded = loads()
      const tiny = createResolver(handle.db, { cacheBytes: 1 })
      await tiny.resolveFrames(projectId, frames)
      await tiny.resolveFrames(projectId, frames)
      assert.equal(loads() - unbounded, 2, 'a map over the bound is parsed for each read and not kept')
    })

    it('maps by debug ID before URL when the event names its script\'s debug ID', async () => {
      const url = 'https://shop.example/static/by-id.js'
      await store(projectId, [map('https://elsewhere.example/bundle.js', { debugId: DEBUG_ID })])
      const resolver = createResolver(handle.db, { cacheBytes: 64 * 1024 * 1024 })
      const frames = parseStack(bundle.stack(url))
      assert.equal((await resolver.resolveFrames(projectId, frames))[0]?.mapped, false)
      const byId = await resolver.resolveFrames(projectId, frames, { debugIds: new Map([[url, DEBUG_ID.toUpperCase()]]) })
      assert.equal(byId[0]?.function, 'applyCoupon')
    })
  })
}
