/** The envelopes the real @sentry/browser sent (test/fixtures/sentry, recorded by the browser test), replayed on both engines. */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { postEnvelope } from '../../helpers/sentry.ts'

const fixture = (name: string): Buffer => fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'sentry', name))
const headerOf = (name: string) => JSON.parse(fixture(name).toString('utf8').split('\n')[0] ?? '{}') as { event_id: string }

interface Detail { session: { id: string; user: { id: string } | null; recording: { chunks: number } }; events: { id: string; type: string; message: string | null; frames: { function: string | null }[] | null }[] }

for (const engine of testEngines()) {
  describe(`recorded Sentry envelopes [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())

    const send = async (name: string, headers: Record<string, string | undefined> = {}) => {
      const res = await postEnvelope(t, fixture(name), { headers })
      assert.equal(res.statusCode, 200, `${name}: ${res.body}`)
      return json<{ id?: string; stored: Record<string, number>; dropped: Record<string, number>; stopped?: string }>(res)
    }
    const replayVisit = async (): Promise<Detail> => {
      const list = json<{ sessions: { id: string; sessionKey: string }[] }>(await t.get('/api/v1/sessions'))
      const visit = list.sessions.find((s) => s.sessionKey.startsWith('sentry-r-'))
      assert.ok(visit, 'the replay\'s visit')
      return json<Detail>(await t.get(`/api/v1/sessions/${visit.id}`))
    }

    it('an error, as sent, compressed and resent, is stored once in its replay\'s visit', async () => {
      const id = headerOf('error.envelope').event_id
      assert.deepEqual(await send('error.envelope'), { id, stored: { event: 1 }, dropped: {} })
      assert.equal((await send('error.gzip.envelope', { 'content-encoding': 'gzip' })).id, id)
      assert.equal((await send('error.br.envelope', { 'content-encoding': 'br' })).id, id)
      assert.deepEqual(await send('unknown-item.envelope'), { id, stored: { event: 1 }, dropped: { future_thing: 1 } })
      const visit = await replayVisit()
      const errors = visit.events.filter((e) => e.type === 'ERROR')
      assert.equal(errors.length, 1, 'four sends, one error')
      assert.match(errors[0]?.message ?? '', /^TypeError: Cannot read properties of undefined \(reading 'total'\)/)
      assert.ok(errors[0]?.frames?.some((f) => f.function === 'checkout'))
      assert.ok(visit.events.some((e) => e.type === 'CLICK') && visit.events.some((e) => e.type === 'HTTP_ERROR'))
      assert.equal(visit.session.user?.id, 'user-42')
    })

    it('a replay segment (no Content-Type) becomes a playable chunk of the same visit; feedback a report in it', async () => {
      assert.deepEqual(await send('replay-segment.envelope', { 'content-type': undefined }),
        { id: headerOf('replay-segment.envelope').event_id, stored: { replay_recording: 1 }, dropped: {} })
      assert.deepEqual((await send('feedback.envelope')).stored, { feedback: 1 })
      const visit = await replayVisit()
      assert.equal(visit.session.recording.chunks, 1)
      assert.equal(visit.events.find((e) => e.type === 'USER_REPORT')?.message, 'Checkout broke')
      const recording = json<{ chunks: { id: string; fullSnapshot: boolean }[] }>(await t.get(`/api/v1/sessions/${visit.session.id}/recording`))
      assert.equal(recording.chunks[0]?.fullSnapshot, true, 'segment 0 opens with the full snapshot')
      const chunk = await t.app.inject({
        url: `/api/v1/sessions/${visit.session.id}/recording/chunks/${recording.chunks[0].id}`,
        headers: { authorization: `Bearer ${t.project.apiKey}`, 'accept-encoding': 'gzip' },
      })
      const events = JSON.parse(gunzipSync(chunk.rawPayload).toString()) as { type: number }[]
      assert.ok(events.some((e) => e.type === 2) && JSON.stringify(events).includes('Sentry shop'), 'the page as recorded')
    })

    it('a session item is kept for release health, a truncated envelope keeps what came before the cut', async () => {
      assert.deepEqual(await send('session.envelope'), { stored: { session: 1 }, dropped: {} })
      const truncated = await send('truncated.envelope')
      assert.deepEqual([truncated.stored, truncated.dropped], [{}, { replay_event: 1 }])
      assert.match(truncated.stopped ?? '', /item 1 \(replay_recording\) is truncated/)
    })
  })
}
