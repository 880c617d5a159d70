import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, it } from 'node:test'
import { gzipSync } from 'node:zlib'
import { eraseVisitor } from '../../../src/privacy/service.ts'
import { purgeTrash } from '../../../src/recording/upkeep.ts'
import { sweep } from '../../../src/retention/service.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { json } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'
import { chunkUpload, rrwebEvents } from '../../helpers/recording.ts'
import { chunkRows, describeStores, OBJECT_STORES, startStoreApp, type StoreApp } from '../../helpers/stores.ts'

const PASSWORD = 'recording deletion password'
type Answer = { sessionId: string; recording: { accepted: number; duplicates: number; dropped: number; full: boolean } }

for (const engine of testEngines()) {
  describeStores(`deleting recordings deletes their objects [${engine}]`, (kind) => {
    let t: StoreApp
    // Small limits so the tests reach them: 4 KiB per chunk, 6 KiB per session.
    before(async () => {
      t = await startStoreApp(engine, kind, { RECORDING_MAX_CHUNK_BYTES: '4096', RECORDING_MAX_SESSION_BYTES: '6144', ADMIN_PASSWORD: PASSWORD })
    })
    after(() => t.close())

    const upload = async (sessionKey: string, chunks: unknown[], extra: Record<string, unknown> = {}) => {
      const res = await t.ingest(batch(sessionKey, [], { recording: chunks, ...extra }))
      assert.equal(res.statusCode, 200, res.body)
      return json<Answer>(res)
    }
    const trashed = async () => (await t.app.db.selectFrom('recording_trash').select('blob').execute()).length
    /** After the upkeep's purge, the store holds exactly the objects rows name, and nothing waits in the trash. */
    const purgedToRows = async () => {
      await purgeTrash(t.app.db, t.app.recordings.stores)
      const named = await t.app.db.selectFrom('recording_chunks').select('blob').where('blob', 'is not', null).execute()
      assert.equal(await t.store.countObjects(), named.length, 'one object per chunk row, no other')
      assert.equal(await trashed(), 0)
    }
    const chunk = (id: string, at = Date.now() - 5000) => chunkUpload(id, rrwebEvents(at))

    it('retention: the sweep trashes an expired visit\'s objects, the purge deletes them, and a live visit keeps its own', async () => {
      const before = await t.store.countObjects()
      const live = await upload('del-live-1', [chunk('l0')])
      // Sent without sentAt: the chunks keep their 31-day-old times, past the 30-day retention.
      const old = await upload('del-old-1', [chunk('o0', Date.now() - 31 * DAY_MS), chunk('o1', Date.now() - 31 * DAY_MS + 5000)])
      assert.equal(await t.store.countObjects(), before + 3)
      await sweep(t.app.db, Date.now())
      assert.deepEqual(await chunkRows(t.app.db, old.sessionId), [])
      assert.equal(await trashed(), 2, 'the rows went, their objects wait in the trash')
      assert.equal(await purgeTrash(t.app.db, t.app.recordings.stores), 2)
      assert.equal(await t.store.countObjects(), before + 1)
      assert.equal((await t.get(`/api/v1/sessions/${live.sessionId}/recording/chunks/l0`)).statusCode, 200)
      await purgedToRows()
    })

    it('erasure deletes the objects before it answers, from the service and from the dashboard', async () => {
      const a = await upload('del-erase-1', [chunk('e0'), chunk('e1')])
      const b = await upload('del-erase-2', [chunk('e0')])
      const count = await t.store.countObjects()
      const erased = await eraseVisitor(t.app.db, t.app.recordings.stores, t.project.id, { sessionId: a.sessionId }, 'full')
      assert.equal(erased.erased, 1)
      assert.equal(await t.store.countObjects(), count - 2)
      const login = await t.app.inject({ method: 'POST', url: '/app/api/session', payload: { password: PASSWORD }, headers: { 'x-sessionwatch': '1' } })
      const cookie = String(login.headers['set-cookie']).split(';')[0] ?? ''
      const res = await t.app.inject({
        method: 'POST', url: `/app/api/projects/${t.project.id}/erase`, payload: { sessionId: b.sessionId }, headers: { cookie, 'x-sessionwatch': '1' },
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(json(res).erased, 1)
      assert.equal(await t.store.countObjects(), count - 3)
      await purgedToRows()
    })

    it('a retried chunk: the copy written again goes to the trash and is deleted, and the first is served', async () => {
      const count = await t.store.countObjects()
      const first = await upload('del-retry-1', [chunk('r0')])
      const [row] = await chunkRows(t.app.db, first.sessionId)
      const again = await upload('del-retry-1', [chunk('r0')])
      assert.deepEqual(again.recording, { accepted: 0, duplicates: 1, dropped: 0, full: false })
      assert.equal(await t.store.countObjects(), count + 2, 'the retry was written before it was known to be one')
      assert.equal(await trashed(), 1)
      await purgedToRows()
      assert.equal(await t.store.countObjects(), count + 1)
      assert.deepEqual(await chunkRows(t.app.db, first.sessionId), [row], 'the row still names the first copy')
      assert.equal((await t.get(`/api/v1/sessions/${first.sessionId}/recording/chunks/r0`)).statusCode, 200)
    })

    it('a chunk over the session limit: its object goes to the trash and is deleted; one over the chunk limit is never written', async () => {
      const count = await t.store.countObjects()
      // Incompressible text makes each chunk ~2.7 KiB compressed: two fit in 6 KiB, the third does not.
      const fill = (i: number) => chunkUpload(`fill-${i}`, rrwebEvents(Date.now() - 9000 + i, 1, randomBytes(2000).toString('base64')))
      const a = await upload('del-full-1', [fill(0), fill(1), fill(2)])
      assert.deepEqual(a.recording, { accepted: 2, duplicates: 0, dropped: 1, full: true })
      assert.equal(await t.store.countObjects(), count + 3)
      await purgedToRows()
      assert.equal(await t.store.countObjects(), count + 2)
      const big = chunkUpload('big-0', null, gzipSync(randomBytes(6000)))
      const res = await t.ingest(batch('del-full-2', [], { recording: [big] }))
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(json<Answer>(res).recording.dropped, 1)
      assert.equal(await t.store.countObjects(), count + 2)
    })
  }, OBJECT_STORES)
}
