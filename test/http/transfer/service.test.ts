import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { getProject } from '../../../src/projects/service.ts'
import { exportSessions, importSessions } from '../../../src/transfer/service.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'
import { chunkUpload, rrwebEvents } from '../../helpers/recording.ts'
import { envelope, errorEvent, postEnvelope } from '../../helpers/sentry.ts'

const linesOf = (lines: string[]): Iterable<string> => lines

async function exportAll(t: TestApp, projectId: string, date?: string): Promise<string[]> {
  const out: string[] = []
  await exportSessions(t.app.db, await getProject(t.app.db, projectId), { date, stores: t.app.recordings.stores }, (line) => { out.push(line); return Promise.resolve() })
  return out
}

for (const engine of testEngines()) {
  describe(`import and export [${engine}]`, () => {
    let source: TestApp
    let target: TestApp
    const yesterday = Date.now() - DAY_MS
    before(async () => {
      source = await startTestApp(engine)
      target = await startTestApp(engine)
      await source.ingest(batch('transfer-one-1', [
        { type: 'NAVIGATION', url: 'https://shop.example/?utm_source=mail', createdAt: yesterday },
        { type: 'HTTP_ERROR', url: 'https://shop.example/api', method: 'PUT', statusCode: 500, durationMs: 10.25,
          reqBody: '{"password":"x"}', resBody: 'nope', createdAt: yesterday + 10 },
        { type: 'CLICK', message: 'b', createdAt: yesterday + 10 },
        { type: 'CUSTOM_TYPE', message: null, createdAt: yesterday + 20 },
      ]), { remoteAddress: '8.8.8.8', headers: { 'user-agent': 'UA/1' } })
      await source.ingest(batch('transfer-two-1', [{ type: 'ERROR', message: 'e', stack: 's', createdAt: Date.now() - 5000 }]))
      // A recording sent by a visitor clock 7 s slow: its chunk times carry the correction.
      await source.ingest(batch('transfer-two-1', [], { sentAt: Date.now() - 7000, recording: [chunkUpload('c-0', rrwebEvents(Date.now() - 9000))] }))
    })
    after(async () => { await source.close(); await target.close() })

    it('round-trips losslessly: every getSession answer is the same after export → import', async () => {
      const lines = await exportAll(source, source.project.id)
      assert.equal(lines.length, 2)
      const report = await importSessions(target.app.db, await getProject(target.app.db, target.project.id), linesOf(lines), target.app.recordings)
      assert.deepEqual(report, { imported: 2, events: 5, duplicates: 0, bad: [], expired: 0, droppedChunks: 0 })
      const list = json<{ sessions: { id: string }[] }>(await source.get('/api/v1/sessions')).sessions
      for (const { id } of list) {
        const a = json(await source.get(`/api/v1/sessions/${id}`))
        const b = json(await target.get(`/api/v1/sessions/${id}`))
        assert.deepEqual({ ...b, project: null }, { ...a, project: null })
        const ra = json(await source.get(`/api/v1/sessions/${id}/recording`))
        const rb = json(await target.get(`/api/v1/sessions/${id}/recording`))
        assert.deepEqual({ ...rb, project: null }, { ...ra, project: null }, 'the recording and its chunk times too')
      }
      const twoId = list.find((x) => x.id)?.id ?? ''
      assert.equal((await target.get(`/api/v1/sessions/${twoId}/recording/chunks/c-0`)).body,
        (await source.get(`/api/v1/sessions/${twoId}/recording/chunks/c-0`)).body)
      assert.deepEqual(await exportAll(target, target.project.id), lines, 'a second export is byte-identical')
    })

    it('exports one line per session in the getSession shape, events as an array', async () => {
      const [line] = await exportAll(source, source.project.id)
      const parsed = JSON.parse(line ?? '{}') as Record<string, unknown>
      assert.deepEqual(Object.keys(parsed),
        ['id', 'sessionKey', 'startedAt', 'lastSeenAt', 'ip', 'country', 'userAgent', 'utm', 'entryUrl', 'browser', 'os', 'user', 'tags',
          'release', 'environment', 'recording', 'events'])
      const recorded = (await exportAll(source, source.project.id)).map((l) => JSON.parse(l) as { recordingChunks?: unknown[] })
      assert.deepEqual(recorded.map((l) => l.recordingChunks?.length), [undefined, 1], 'a session with a recording carries its chunks')
      assert.ok(Array.isArray(parsed.events))
    })

    it('filters an export by UTC day', async () => {
      const day = new Date(yesterday).toISOString().slice(0, 10)
      const lines = await exportAll(source, source.project.id, day)
      assert.ok(lines.length >= 1)
      assert.ok(lines.every((l) => (JSON.parse(l) as { startedAt: string }).startedAt.startsWith(day)))
    })

    it('stores nothing twice when the same lines are imported again', async () => {
      const lines = await exportAll(source, source.project.id)
      const report = await importSessions(target.app.db, await getProject(target.app.db, target.project.id), linesOf(lines), target.app.recordings)
      assert.equal(report.events, 0)
      assert.equal(report.duplicates, 5)
      assert.equal(json<{ total: number }>(await target.get('/api/v1/sessions')).total, 2)
    })

    it('recomputes counters from the events', async () => {
      const t = new Date().toISOString()
      const line = JSON.stringify({
        id: 'imported-counters', sessionKey: 'imported-counters-key', startedAt: t, lastSeenAt: t, ip: null, country: null,
        userAgent: null, utm: null, events: [
          { id: '1', type: 'ERROR', createdAt: t, message: 'x' }, { id: '2', type: 'SLOW_REQUEST', createdAt: t, url: 'u', durationMs: 3000 },
          { id: '3', type: 'HTTP_ERROR', createdAt: t, url: 'u', method: 'GET', statusCode: null },
        ],
      })
      await importSessions(target.app.db, await getProject(target.app.db, target.project.id), linesOf([line]), target.app.recordings)
      const s = json<{ session: { events: unknown } }>(await target.get('/api/v1/sessions/imported-counters')).session
      assert.deepEqual(s.events, { total: 3, errors: 2, slow: 1 })
    })

    it('reports bad lines by number and stores nothing of them, keeping the good ones', async () => {
      const t = new Date().toISOString()
      const good = (id: string) => ({ id, sessionKey: `${id}-key`, startedAt: t, lastSeenAt: t, events: [{ id: 'e', type: 'CLICK', createdAt: t, message: 'ok' }] })
      const lines = [
        JSON.stringify(good('good-a')),
        '{not json',
        JSON.stringify({ ...good('bad-c'), events: [{ id: 'e1', type: 'CLICK', createdAt: t, message: 'fine' }, { id: 'e2', type: 'ERROR', createdAt: t }] }),
        JSON.stringify({ ...good('bad-d'), startedAt: '2026-02-30T00:00:00Z' }),
        JSON.stringify({ ...good('bad-e'), events: [{ id: 'e', type: 'CLICK', createdAt: 'yesterday', message: 'x' }] }),
        JSON.stringify({ ...good('bad-f'), events: [{ id: 'e', type: 'CLICK', createdAt: t, message: 'x' }, { id: 'e', type: 'CLICK', createdAt: t, message: 'y' }] }),
        JSON.stringify({ ...good('bad-g'), sessionKey: 'good-a-key' }),
        JSON.stringify({ ...good('bad-h'), unknownField: 1 }),
        '',
        JSON.stringify(good('good-b')),
      ]
      const report = await importSessions(target.app.db, await getProject(target.app.db, target.project.id), linesOf(lines), target.app.recordings)
      assert.equal(report.imported, 2)
      assert.deepEqual(report.bad.map((b) => b.line), [2, 3, 4, 5, 6, 7, 8])
      assert.match(report.bad[1]?.reason ?? '', /events\.1: ERROR needs message/)
      assert.match(report.bad[5]?.reason ?? '', /already belongs to session good-a/)
      for (const id of ['bad-c', 'bad-d', 'bad-e', 'bad-f', 'bad-g', 'bad-h']) {
        assert.equal((await target.get(`/api/v1/sessions/${id}`)).statusCode, 404, id)
      }
      const c = await target.app.db.selectFrom('events').select('id').where('session_id', '=', 'bad-c').execute()
      assert.deepEqual(c, [], 'not half a line')
      assert.equal((await target.get('/api/v1/sessions/good-b')).statusCode, 200)
    })
  
    it('keeps a server SDK\'s frames and their source context through export and import', async () => {
      const from = await startTestApp(engine)
      const to = await startTestApp(engine)
      try {
        const event = errorEvent('c0000000000000000000000000000001', { platform: 'python', exception: { values: [{ type: 'ValueError', value: 'bad', stacktrace: { frames: [
          { abs_path: '/srv/shop/orders.py', function: 'place', lineno: 7, in_app: true, pre_context: ['a'], context_line: 'raise ValueError("bad")', post_context: ['b'] },
        ] } }] } })
        assert.equal((await postEnvelope(from, envelope({}, [[{ type: 'event' }, event]]))).statusCode, 200)
        const lines = await exportAll(from, from.project.id)
        await importSessions(to.app.db, await getProject(to.app.db, to.project.id), linesOf(lines), to.app.recordings)
        const [visit] = json<{ sessions: { id: string }[] }>(await from.get('/api/v1/sessions')).sessions
        const framesOf = async (t: TestApp) => json<{ events: { type: string; frames: unknown }[] }>(await t.get(`/api/v1/sessions/${visit?.id ?? ''}`))
          .events.find((e) => e.type === 'ERROR')?.frames
        const frames = await framesOf(from)
        assert.deepEqual(frames, [{ function: 'place', file: '/srv/shop/orders.py', line: 7, column: null, mapped: false, inApp: true,
          context: { pre: ['a'], line: 'raise ValueError("bad")', post: ['b'] } }])
        assert.deepEqual(await framesOf(to), frames)
      } finally {
        await from.close()
        await to.close()
      }
    })
  })
}

