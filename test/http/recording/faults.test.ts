import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { gunzipSync } from 'node:zlib'
import type { LightMyRequestResponse } from 'fastify'
import pg from 'pg'
import type { Engine } from '../../../src/config.ts'
import { eraseVisitor } from '../../../src/privacy/service.ts'
import { purgeTrash } from '../../../src/recording/upkeep.ts'
import { json } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'
import { chunkUpload, rrwebEvents } from '../../helpers/recording.ts'
import { chunkRows, loseObject, OBJECT_STORES, putOrphan, startStoreApp, type StoreApp, testStores } from '../../helpers/stores.ts'
import { eventually } from '../../helpers/wait.ts'

type Answer = { sessionId: string; recording?: { accepted: number; duplicates: number; dropped: number } }

/** A batch of one click and one recording chunk, whose chunk `read` reads back as `marker`. */
const recordedBatch = (sessionKey: string, chunk: string, marker: string) =>
  batch(sessionKey, [{ type: 'CLICK', message: marker }], { recording: [chunkUpload(chunk, rrwebEvents(Date.now() - 5000, 1, marker))] })

const assertRetryLater = (res: LightMyRequestResponse, what: string) => {
  assert.equal(res.statusCode, 503, `${what}: ${res.body}`)
  assert.match(String(res.headers['retry-after']), /^\d+$/, `${what}: Retry-After`)
}

/**
 * Runs `request` while the database refuses to commit: SQLite's file is locked by another connection until the
 * busy timeout gives up; PostgreSQL's recording_chunks is locked by another client, and the request's connection,
 * once it waits for that lock, is ended as a crashed server would end it.
 */
async function withFailingCommit(engine: Engine, databaseUrl: string, request: () => Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
  if (engine === 'sqlite') {
    const { default: SQLite } = await import('better-sqlite3')
    const other = new SQLite(databaseUrl.replace(/^file:/, ''))
    try {
      other.exec('begin exclusive')
      return await request()
    } finally {
      other.close()
    }
  }
  const other = new pg.Client(databaseUrl)
  await other.connect()
  try {
    await other.query('begin')
    await other.query('lock table recording_chunks in access exclusive mode')
    const answer = request()
    await eventually(async () => (await other.query<{ pid: number }>(`select pg_terminate_backend(pid) as pid from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`)).rows[0]?.pid, 'the commit waiting for the lock')
    return await answer
  } finally {
    await other.end()
  }
}

// One block after another, not at once (describeStores): SQLite's busy wait holds the event loop, and an S3 request of
// another block in flight then would time out.
const cases = testEngines().flatMap((engine) => testStores().filter((k) => OBJECT_STORES.includes(k)).map((kind) => [engine, kind] as const))
for (const [engine, kind] of cases) {
  describe(`recording store and database faults [${engine}, ${kind} store]`, () => {
    let t: StoreApp
    before(async () => { t = await startStoreApp(engine, kind) })
    after(() => t.close())

    /** A chunk's data as served, gunzipped; the status when it is not served. */
    const served = async (sessionId: string, chunk: string) => {
      const res = await t.app.inject({
        url: `/api/v1/sessions/${sessionId}/recording/chunks/${chunk}`, headers: { authorization: `Bearer ${t.project.apiKey}`, 'accept-encoding': 'gzip' },
      })
      return res.statusCode === 200 ? gunzipSync(res.rawPayload).toString() : res.statusCode
    }

    it('a database failure after the chunk\'s object is written answers 503, lists no chunk and leaves no object', async () => {
      const store = t.app.recordings.stores.current?.store
      assert.ok(store)
      const written: string[] = []
      const put = store.put.bind(store)
      store.put = (key, data) => { written.push(key); return put(key, data) }
      const count = await t.store.countObjects()
      const body = recordedBatch('fault-commit-1', 'fc-0', 'COMMIT-FAILED-ONCE')
      assertRetryLater(await withFailingCommit(engine, t.databaseUrl, () => t.ingest(body)), 'the failed commit')
      assert.equal(written.length, 1, 'the object was written before the commit failed')
      assert.deepEqual(await t.app.db.selectFrom('recording_chunks').select('id').where('id', '=', 'fc-0').execute(), [])
      assert.equal(await t.store.countObjects(), count, 'the written object was deleted again')
      const again = await t.ingest(body)
      assert.equal(again.statusCode, 200, again.body)
      const { sessionId } = json<Answer>(again)
      assert.deepEqual(json<Answer>(again).recording, { accepted: 1, duplicates: 0, dropped: 0, full: false })
      assert.match(String(await served(sessionId, 'fc-0')), /COMMIT-FAILED-ONCE/)
      assert.equal(await t.store.countObjects(), count + 1)
    })

    it('a chunk whose object was deleted by hand answers 404 naming `storage check`; an orphan object stays for it', async () => {
      const store = t.store.store
      assert.ok(store)
      const { sessionId } = json<Answer>(await t.ingest(recordedBatch('fault-lost-1', 'lost-0', 'LOST')))
      await loseObject(t.app.db, store, sessionId, 'lost-0')
      const res = await t.get(`/api/v1/sessions/${sessionId}/recording/chunks/lost-0`)
      assert.equal(res.statusCode, 404, res.body)
      assert.match(json<{ message: string }>(res).message, /missing from its recording store.*storage check/)
      const count = await t.store.countObjects()
      const orphan = await putOrphan(store, t.project.id)
      await purgeTrash(t.app.db, t.app.recordings.stores)
      assert.equal(await t.store.countObjects(), count + 1, `the orphan ${orphan} is not the trash's to delete`)
    })

    if (kind !== 's3') return
    it('while S3 is down: recordings answer 503 with Retry-After, events alone are stored, and after it nothing is lost', async () => {
      const s3 = t.store.s3
      assert.ok(s3)
      const stored = new Map<string, string>()
      for (let i = 0; i < 3; i++) {
        const res = await t.ingest(recordedBatch(`fault-s3-before-${i}`, 'b-0', `BEFORE-${i}`))
        assert.equal(res.statusCode, 200, res.body)
        stored.set(json<Answer>(res).sessionId, `BEFORE-${i}`)
      }
      const [firstStored] = stored.keys()
      await s3.stop()
      const bodies = Array.from({ length: 8 }, (_, i) => recordedBatch(`fault-s3-during-${i}`, 'd-0', `DURING-${i}`))
      try {
        // A few requests of each kind at once, as a busy service gets them.
        const answers = await Promise.all([
          ...bodies.map((body) => t.ingest(body)),
          ...Array.from({ length: 8 }, () => t.get(`/api/v1/sessions/${firstStored ?? ''}/recording/chunks/b-0`)),
          ...Array.from({ length: 8 }, (_, i) => t.ingest(batch(`fault-s3-events-${i}`, [{ type: 'CLICK', message: 'no recording' }]))),
        ])
        answers.slice(0, 16).forEach((res, i) => { assertRetryLater(res, i < 8 ? `ingest ${i}` : `chunk read ${i - 8}`) })
        answers.slice(16).forEach((res, i) => { assert.equal(res.statusCode, 200, `events-only batch ${i}: ${res.body}`) })
      } finally {
        await s3.start()
      }
      for (const body of bodies) {
        const res = await t.ingest(body)
        assert.equal(res.statusCode, 200, res.body)
        assert.deepEqual(json<Answer>(res).recording, { accepted: 1, duplicates: 0, dropped: 0, full: false }, 'nothing of it was stored before')
        stored.set(json<Answer>(res).sessionId, String(body.events[0]?.message))
      }
      for (const [sessionId, marker] of stored) {
        assert.match(String(await served(sessionId, sessionId === firstStored || marker.startsWith('BEFORE') ? 'b-0' : 'd-0')), new RegExp(marker))
        const { events } = json<{ events: { message: string | null }[] }>(await t.get(`/api/v1/sessions/${sessionId}`))
        assert.equal(events.filter((e) => e.message === marker).length, 1, `${marker}: its click once`)
      }
    })

    it('an erasure while S3 is down answers, keeps the objects in the trash, and the purge deletes them once it is back', async () => {
      const s3 = t.store.s3
      assert.ok(s3)
      const res = await t.ingest(recordedBatch('fault-s3-erase-1', 'x-0', 'ERASED'))
      const { sessionId } = json<Answer>(res)
      const count = await t.store.countObjects()
      await s3.stop()
      try {
        assert.equal((await eraseVisitor(t.app.db, t.app.recordings.stores, t.project.id, { sessionId }, 'full')).erased, 1)
      } finally {
        await s3.start()
      }
      assert.deepEqual(await chunkRows(t.app.db, sessionId), [])
      assert.equal(await t.store.countObjects(), count, 'the object is still there')
      assert.equal((await t.app.db.selectFrom('recording_trash').select('blob').execute()).length, 1, 'and in the trash')
      assert.equal(await purgeTrash(t.app.db, t.app.recordings.stores), 1)
      assert.equal(await t.store.countObjects(), count - 1)
    })
  })
}
