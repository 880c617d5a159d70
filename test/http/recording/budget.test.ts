import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { eraseVisitor } from '../../../src/privacy/service.ts'
import { updateProject } from '../../../src/projects/service.ts'
import { recordingUsage } from '../../../src/visits/index.ts'
import { enforceFloor, upkeep } from '../../../src/recording/upkeep.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'
import { chunkUpload, rrwebEvents } from '../../helpers/recording.ts'
import { mountTmpfs, smallDiskUnavailable } from '../../helpers/small-disk.ts'

interface RecordingAnswer { recording: { chunks: number; bytes: number; evicted: boolean; evictedBytes: number; mode: string | null } }
interface Usage { recordingBytes: number; recordingBudget: number | null; evictedVisits: number; evictedBytes: number }

/** Random text compresses to itself: each chunk weighs about `bytes`, whatever gzip does. */
const heavyChunk = (id: string, start: number, bytes: number) => chunkUpload(id, rrwebEvents(start, 1, randomBytes(bytes).toString('base64')))

/** Files under a folder, however deep. */
const filesUnder = (dir: string): number => (fs.existsSync(dir)
  ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length : 0)

for (const engine of testEngines()) {
  describe(`recording budget [${engine}]`, () => {
    let t: TestApp
    let folder: string
    before(async () => {
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-budget-'))
      t = await startTestApp(engine, { RECORDING_MAX_CHUNK_BYTES: '65536', ADMIN_PASSWORD: PASSWORD, RECORDINGS_URL: `file:${folder}` })
    })
    after(() => t.close())

    /** One visit a minute apart (ids are time-ordered), each with one ~8 KB chunk and an error event. */
    const visit = async (n: number): Promise<string> => {
      const start = Date.now() - (60 - n) * 60_000
      const res = await t.ingest(batch(`budget-visit-${n}`, [{ type: 'ERROR', message: `boom ${n}`, createdAt: start }], {
        recording: [heavyChunk(`c${n}`, start, 6000)],
      }))
      assert.equal(res.statusCode, 200, res.body)
      return json<{ sessionId: string }>(res).sessionId
    }
    const recordingOf = async (id: string) => json<RecordingAnswer>(await t.get(`/api/v1/sessions/${id}/recording`))

    it('keeps a project within its budget by deleting its oldest recordings, never its visits or events', async () => {
      const ids: string[] = []
      for (let n = 0; n < 6; n++) ids.push(await visit(n))
      const sizes = await Promise.all(ids.map(async (id) => (await recordingOf(id)).recording.bytes))
      const total = sizes.reduce((a, b) => a + b, 0)
      assert.equal(filesUnder(folder), 6, 'one object per chunk in the file store')
      // Room for the newest three and a little: the oldest three go.
      const budget = (sizes[3] ?? 0) + (sizes[4] ?? 0) + (sizes[5] ?? 0) + 100
      await updateProject(t.app.db, t.project.id, { recordingBudget: budget })
      const report = await upkeep(t.app.db, t.app.recordings.stores, Date.now())
      assert.equal(report.evictedVisits, 3)
      assert.equal(report.evictedBytes, total - budget + 100)
      for (const [i, id] of ids.entries()) {
        const r = await recordingOf(id)
        assert.equal(r.recording.evicted, i < 3, `visit ${i}: the oldest are evicted`)
        assert.equal(r.recording.chunks, i < 3 ? 0 : 1)
        if (i < 3) assert.equal(r.recording.evictedBytes, sizes[i])
        const detail = json<{ session: { events: { errors: number } } }>(await t.get(`/api/v1/sessions/${id}`))
        assert.equal(detail.session.events.errors, 1, 'the visit and its events stay')
      }
      assert.equal(filesUnder(folder), 3, 'the evicted chunks\' files are deleted')
      const withReplay = json<{ total: number; sessions: { id: string }[] }>(await t.get('/api/v1/sessions?recording=true&limit=50'))
      assert.deepEqual(withReplay.sessions.map((s) => s.id).sort(), ids.slice(3).sort(), '"with replay" lists only visits that still have one')
      const usage = json<Usage>(await t.app.inject({
        url: `/app/api/projects/${t.project.id}/usage`, headers: await signedIn(t),
      }))
      assert.deepEqual([usage.recordingBytes, usage.recordingBudget, usage.evictedVisits], [budget - 100, budget, 3])
      const again = await upkeep(t.app.db, t.app.recordings.stores, Date.now())
      assert.equal(again.evictedVisits, 0, 'within budget: nothing more goes')
      await eraseVisitor(t.app.db, t.app.recordings.stores, t.project.id, { sessionId: ids[5] ?? '' }, 'full')
      const counted = await t.app.db.selectFrom('sessions').select((eb) => eb.fn.sum<number | string | null>('recording_bytes').as('b'))
        .where('project_id', '=', t.project.id).executeTakeFirst()
      assert.equal((await recordingUsage(t.app.db, t.project.id)).bytes, Number(counted?.b ?? 0),
        'the counted usage follows ingest, eviction and erasure exactly')
    })

    it('takes new recordings while over budget and evicts older ones for them', async () => {
      const id = await visit(40)
      assert.equal((await recordingOf(id)).recording.chunks, 1, 'a new chunk is stored, budget or not')
      await upkeep(t.app.db, t.app.recordings.stores, Date.now())
      assert.equal((await recordingOf(id)).recording.evicted, false, 'the newest stays')
      await updateProject(t.app.db, t.project.id, { recordingBudget: null })
    })
  })
}

const PASSWORD = 'budget-test-password'

/** Dashboard headers of a signed-in admin. */
async function signedIn(t: TestApp): Promise<Record<string, string>> {
  const res = await t.app.inject({ method: 'POST', url: '/app/api/session', payload: { password: PASSWORD }, headers: { 'x-sessionwatch': '1' } })
  const cookie = String(res.headers['set-cookie']).split(';')[0] ?? ''
  return { cookie, 'x-sessionwatch': '1' }
}

describe('recording disk floor', { skip: smallDiskUnavailable() ?? false }, () => {
  it('deletes the oldest recordings of every project while the file store\'s disk is under RECORDINGS_MIN_FREE', async () => {
    const disk = mountTmpfs(2)
    const t = await startTestApp('sqlite', { RECORDINGS_URL: `file:${path.join(disk.dir, 'rec')}`, RECORDINGS_MIN_FREE: '50%', RECORDING_MAX_CHUNK_BYTES: '262144' })
    try {
      const other = await t.newProject('Other')
      const ids: string[] = []
      for (let n = 0; n < 8; n++) {
        const res = await t.app.inject({
          method: 'POST', url: '/ingest/v1/batch', headers: { 'x-ingest-key': n % 2 === 0 ? t.project.ingestKey : other.ingestKey },
          payload: batch(`floor-visit-${n}`, [{ type: 'CLICK', message: 'Pay', createdAt: Date.now() - (10 - n) * 60_000 }], {
            recording: [heavyChunk(`f${n}`, Date.now() - (10 - n) * 60_000, 150_000)],
          }),
        })
        assert.equal(res.statusCode, 200, res.body)
        ids.push(json<{ sessionId: string }>(res).sessionId)
      }
      const store = t.app.recordings.stores.current?.store
      assert.ok(store)
      const share = async () => { const d = await store.disk(); return d === null ? 0 : d.free / d.total }
      assert.ok(await share() < 0.5, 'the recordings took more than half the disk')
      const report = await enforceFloor(t.app.db, t.app.recordings.stores, Date.now())
      assert.ok(report.evictedVisits > 0)
      assert.ok(await share() >= 0.5, 'the floor holds again')
      assert.ok(report.evictedVisits < 8, 'only as many as the floor needs')
      // Visit 7 went to the other project (odd visits did).
      const kept = json<RecordingAnswer>(await t.get(`/api/v1/sessions/${ids[7] ?? ''}/recording`, other.apiKey))
      assert.equal(kept.recording.evicted, false, 'the newest recording stays')
    } finally {
      await t.close()
      disk.unmount()
    }
  })

  it('stores a batch\'s events when the recordings\' disk is full, dropping only its chunk', async () => {
    const disk = mountTmpfs(1)
    const t = await startTestApp('sqlite', { RECORDINGS_URL: `file:${path.join(disk.dir, 'rec')}` })
    try {
      // Fill the filesystem to its last byte.
      fs.writeFileSync(path.join(disk.dir, 'filler'), Buffer.alloc(0))
      try {
        for (;;) fs.appendFileSync(path.join(disk.dir, 'filler'), randomBytes(65_536))
      } catch { /* full */ }
      const res = await t.ingest(batch('full-disk-visit', [{ type: 'ERROR', message: 'still stored', createdAt: Date.now() }], {
        recording: [heavyChunk('full-0', Date.now(), 20_000)],
      }))
      assert.equal(res.statusCode, 200, res.body)
      const answer = json<{ sessionId: string; accepted: number; recording: { dropped: number } }>(res)
      assert.deepEqual([answer.accepted, answer.recording.dropped], [1, 1], 'the event is stored, the chunk dropped and counted')
      const recording = json<{ recording: { chunks: number; droppedChunks: number } }>(await t.get(`/api/v1/sessions/${answer.sessionId}/recording`))
      assert.deepEqual([recording.recording.chunks, recording.recording.droppedChunks], [0, 1])
    } finally {
      await t.close()
      disk.unmount()
    }
  })
})
