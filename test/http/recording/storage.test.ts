import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { getProject } from '../../../src/projects/service.ts'
import { checkStorage, migrateStorage, type MigrateOptions } from '../../../src/recording/storage.ts'
import { openStore, openStores, parseStoreUrl, type BlobStore, type StoreUrl } from '../../../src/recording/store/index.ts'
import { exportSessions, importSessions } from '../../../src/transfer/service.ts'
import { evictRecordings, trashBlobs } from '../../../src/visits/index.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'
import { chunkUpload, rrwebEvents } from '../../helpers/recording.ts'

// s3rver ships no types; this is the little of it the tests use.
interface S3rverServer { run(): Promise<{ port: number }>; close(): Promise<void> }
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => S3rverServer

const BUCKET = 'sw-recordings'
const quiet = { progress: () => undefined }
const url = (raw: string): StoreUrl => {
  const parsed = parseStoreUrl(raw, (p) => p)
  if (typeof parsed === 'string') throw new Error(parsed)
  return parsed
}
const HOUR = 3_600_000

async function keysOf(store: BlobStore): Promise<string[]> {
  const keys: string[] = []
  for await (const o of store.list()) keys.push(o.key)
  return keys.sort()
}

/** Every stored chunk of the app as the API serves it to a player that accepts gzip: the stored bytes themselves. */
async function served(t: TestApp): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>()
  for (const { id } of json<{ sessions: { id: string }[] }>(await t.get('/api/v1/sessions?limit=100')).sessions) {
    for (const chunk of json<{ chunks: { id: string }[] }>(await t.get(`/api/v1/sessions/${id}/recording`)).chunks) {
      const res = await t.app.inject({
        url: `/api/v1/sessions/${id}/recording/chunks/${chunk.id}`, headers: { authorization: `Bearer ${t.project.apiKey}`, 'accept-encoding': 'gzip' },
      })
      assert.equal(res.statusCode, 200, res.body)
      out.set(`${id}/${chunk.id}`, res.rawPayload)
    }
  }
  return out
}

for (const engine of testEngines()) {
  describe(`recording storage check and migrate [${engine}]`, () => {
    let dir: string
    let s3: S3rverServer
    let s3Env: Record<string, string>
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-storage-'))
      s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(dir, 's3'), configureBuckets: [{ name: BUCKET }] })
      const { port } = await s3.run()
      process.env.AWS_ACCESS_KEY_ID = 'S3RVER'
      process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER'
      s3Env = { S3_ENDPOINT: `http://127.0.0.1:${port}`, S3_FORCE_PATH_STYLE: 'true' }
    })
    after(async () => {
      await s3.close()
      fs.rmSync(dir, { recursive: true, force: true })
    })

    /** An app whose new chunks go to `store`, with `sessions` visits of three chunks each. */
    async function recordedApp(store: string, sessions: number): Promise<TestApp> {
      const t = await startTestApp(engine, { RECORDINGS_URL: store, ...s3Env })
      const start = Date.now() - 60_000
      for (let s = 0; s < sessions; s++) {
        const chunks = [0, 1, 2].map((c) => chunkUpload(`c${c}`, rrwebEvents(start + c * 5000, 2, `visit ${s} chunk ${c}`)))
        assert.equal((await t.ingest(batch(`storage-${s}`, [], { recording: chunks }))).statusCode, 200)
      }
      return t
    }
    /** Moves the app's chunks from `from` to `to` as the CLI does, with stores opened for RECORDINGS_URL=from. */
    async function migrate(t: TestApp, from: string, to: string, step?: MigrateOptions['step']) {
      const stores = await openStores(t.app.db, { ...t.app.config.recordings, store: url(from) })
      try {
        return await migrateStorage(t.app.db, stores, url(to), { ...quiet, ...(step && { step }) })
      } finally {
        await stores.close()
      }
    }
    async function check(t: TestApp, fix: boolean, now = Date.now()) {
      const stores = await openStores(t.app.db, t.app.config.recordings)
      try {
        return await checkStorage(t.app.db, stores, { fix, now, progress: () => undefined })
      } finally {
        await stores.close()
      }
    }
    const open = (t: TestApp, raw: string) => openStore(url(raw), t.app.config.recordings.s3)

    it('migrates database → file → s3 → database keeping every chunk byte-identical and emptying each source', async () => {
      const t = await recordedApp('database:', 3)
      try {
        const before = await served(t)
        assert.equal(before.size, 9)
        const file = `file:${path.join(dir, 'migrated')}`
        const bucket = `s3://${BUCKET}/migrated`
        let from = 'database:'
        for (const to of [file, bucket, 'database:']) {
          const report = await migrate(t, from, to)
          assert.deepEqual({ moved: report.moved, gone: report.gone, missing: report.missing, left: report.left }, { moved: 9, gone: 0, missing: 0, left: 0 })
          assert.deepEqual(await served(t), before, `every chunk served the same after ${from} → ${to}`)
          const source = open(t, from)
          if (source) assert.deepEqual(await keysOf(source), [], `${from} is emptied`)
          const target = open(t, to)
          if (target) assert.equal((await keysOf(target)).length, 9, `${to} holds every chunk once`)
          const rows = await t.app.db.selectFrom('recording_chunks').select(['data', 'store_id']).execute()
          assert.ok(rows.every((r) => (to === 'database:' ? r.data !== null && r.store_id === null : r.data === null && r.store_id !== null)))
          from = to
        }
        assert.equal((await t.app.db.selectFrom('recording_trash').selectAll().execute()).length, 0, 'nothing is left in the trash')
        await assert.rejects(migrate(t, 'database:', 'database:'), /already in database:/)
      } finally {
        await t.close()
      }
    })

    it('finishes a stopped migration when run again: orphaned copies are found by check and every chunk moves once', async () => {
      const t = await recordedApp(`file:${path.join(dir, 'stopped-from')}`, 3)
      try {
        const before = await served(t)
        const from = `file:${path.join(dir, 'stopped-from')}`
        const to = `s3://${BUCKET}/stopped`
        const stopAt = (stage: 'written' | 'moved', n: number): MigrateOptions['step'] => {
          let seen = 0
          return (s) => { if (s === stage && ++seen === n) throw new Error('killed') }
        }
        // Stopped between writing a copy and repointing its row: that copy is an orphan of the target.
        await assert.rejects(migrate(t, from, to, stopAt('written', 3)), /killed/)
        assert.deepEqual(await served(t), before, 'a stopped run serves every chunk still')
        const found = await check(t, false, Date.now() + HOUR)
        assert.deepEqual(found.orphans.map((o) => o.store), [to], 'the unrepointed copy is the one orphan')
        assert.deepEqual(found.missing, [])
        // Stopped right after a row moved: its source object waits in the trash, not as an orphan.
        await assert.rejects(migrate(t, from, to, stopAt('moved', 2)), /killed/)
        assert.ok((await t.app.db.selectFrom('recording_trash').selectAll().execute()).length > 0)
        const report = await migrate(t, from, to)
        assert.equal(report.left, 0)
        assert.deepEqual(await served(t), before)
        assert.deepEqual(await keysOf(open(t, from) as BlobStore), [], 'the source is emptied, its trash purged')
        const fixed = await check(t, true, Date.now() + HOUR)
        assert.equal(fixed.orphans.length, 1)
        assert.equal((await keysOf(open(t, to) as BlobStore)).length, 9, 'with the orphan gone, the target holds each chunk once')
        assert.deepEqual(await check(t, false, Date.now() + HOUR), { orphans: [], missing: [], young: 0, fixed: false })
      } finally {
        await t.close()
      }
    })

    it('trashes the copy of a chunk deleted while it was being moved, and moves the rest', async () => {
      const from = `file:${path.join(dir, 'raced-from')}`
      const to = `s3://${BUCKET}/raced`
      const t = await recordedApp(from, 2)
      try {
        let erased: string | null = null
        const report = await migrate(t, from, to, async (stage, chunk) => {
          if (stage !== 'written' || erased !== null) return
          erased = chunk.session_id
          await evictRecordings(t.app.db, chunk.project_id, [chunk.session_id], Date.now())
        })
        // Chunks move four at a time: how many of the evicted visit's chunks had moved before it went depends on timing.
        assert.deepEqual({ all: report.moved + report.gone, left: report.left }, { all: 6, left: 0 })
        assert.ok(report.gone >= 1 && report.moved >= 3, JSON.stringify(report))
        assert.equal((await served(t)).size, 3)
        assert.equal((await keysOf(open(t, to) as BlobStore)).length, 3, 'the erased visit\'s copy was trashed and purged')
        assert.deepEqual(await keysOf(open(t, from) as BlobStore), [], 'and its source objects too')
        assert.deepEqual(await check(t, false, Date.now() + HOUR), { orphans: [], missing: [], young: 0, fixed: false })
      } finally {
        await t.close()
      }
    })

    it('check finds old orphans and missing objects, leaves young and trashed objects alone; fix deletes and marks them', async () => {
      const root = path.join(dir, 'checked')
      const t = await recordedApp(`file:${root}`, 2)
      try {
        const store = open(t, `file:${root}`) as BlobStore
        const [storeId] = (await t.app.db.selectFrom('recording_stores').select('id').execute()).map((r) => r.id)
        const projectId = t.project.id
        const old = Date.now() / 1000 - 3600
        for (const key of [`${projectId}/ab/orphan.gz`, 'elsewhere/cd/orphan.gz', `${projectId}/ab/trashed.gz`]) {
          await store.put(key, Buffer.from('x'))
          fs.utimesSync(path.join(root, ...key.split('/')), old, old)
        }
        await store.put(`${projectId}/ab/young.gz`, Buffer.from('young'))
        await trashBlobs(t.app.db, [{ store_id: storeId ?? 0, blob: `${projectId}/ab/trashed.gz` }], Date.now())
        const lost = await t.app.db.selectFrom('recording_chunks').select(['session_id', 'id', 'blob']).where('id', '=', 'c1').orderBy('session_id').executeTakeFirstOrThrow()
        await store.delete([lost.blob ?? ''])
        const found = await check(t, false)
        assert.deepEqual(found.orphans.map((o) => o.key).sort(), ['elsewhere/cd/orphan.gz', `${projectId}/ab/orphan.gz`])
        assert.deepEqual(found.orphans.map((o) => o.bytes), [1, 1])
        assert.deepEqual(found.missing, [{ project: projectId, session: lost.session_id, chunk: 'c1', store: `file:${root}` }])
        assert.equal(found.young, 1)
        const lostUrl = `/api/v1/sessions/${lost.session_id}/recording/chunks/c1`
        assert.notEqual((await t.get(lostUrl)).statusCode, 200, 'before the fix the API lists a chunk it cannot serve')
        const fixed = await check(t, true)
        assert.deepEqual({ orphans: fixed.orphans.length, missing: fixed.missing.length, fixed: fixed.fixed }, { orphans: 2, missing: 1, fixed: true })
        const chunkKey = /^[^/]+\/[0-9a-f]{2}\/[\w-]{20}\.gz$/
        assert.deepEqual((await keysOf(store)).filter((k) => !chunkKey.test(k)), [`${projectId}/ab/trashed.gz`, `${projectId}/ab/young.gz`],
          'the young and the trashed objects stay')
        assert.equal((await keysOf(store)).filter((k) => chunkKey.test(k)).length, 5, 'and every chunk\'s object')
        const recording = json<{ recording: { chunks: number; droppedChunks: number }; chunks: { id: string }[] }>(
          await t.get(`/api/v1/sessions/${lost.session_id}/recording`))
        assert.deepEqual(recording.chunks.map((c) => c.id), ['c0', 'c2'], 'the API no longer lists the missing chunk')
        assert.deepEqual([recording.recording.chunks, recording.recording.droppedChunks], [2, 1])
        assert.equal((await served(t)).size, 5)
        assert.deepEqual(await check(t, false), { orphans: [], missing: [], young: 1, fixed: false })
      } finally {
        await t.close()
      }
    })

    it('exports from an S3-backed service and imports into a file-backed one with the same chunk bytes', async () => {
      const source = await recordedApp(`s3://${BUCKET}/exported`, 2)
      const target = await startTestApp(engine, { RECORDINGS_URL: `file:${path.join(dir, 'imported')}`, ...s3Env })
      try {
        const lines: string[] = []
        await exportSessions(source.app.db, await getProject(source.app.db, source.project.id), { stores: source.app.recordings.stores },
          (line) => { lines.push(line); return Promise.resolve() })
        const report = await importSessions(target.app.db, await getProject(target.app.db, target.project.id), lines, target.app.recordings)
        assert.equal(report.imported, 2)
        assert.deepEqual(await served(target), await served(source))
        assert.equal((await keysOf(open(target, `file:${path.join(dir, 'imported')}`) as BlobStore)).length, 6, 'the chunks are in the file store')
      } finally {
        await source.close()
        await target.close()
      }
    })
  })
}
