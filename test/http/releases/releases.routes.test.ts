import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { parseEnvelope } from '../../../src/sentry/envelope.ts'
import { eraseVisitor } from '../../../src/privacy/service.ts'
import { sweep } from '../../../src/retention/service.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'
import { envelope, errorEvent, postEnvelope } from '../../helpers/sentry.ts'

interface Release {
  release: string; environment: string | null; sessions: number; crashed: number; errored: number; crashFreeRate: number | null
  users: number; crashFreeUsers: number | null; firstSeenAt: string; lastSeenAt: string; newIssues: number
}
interface ReleaseList { total: number; limit: number; offset: number; next: string | null; releases: Release[] }
type ReleaseDetail = Release & { days: { day: string; sessions: number; crashed: number }[]; issues: { id: string; title: string }[] }

const fixtures = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'sentry')
/**
 * The session items of a recorded envelope (gzipped when its name says so), in an envelope of their own, with their day moved
 * to today, so they are never past retention when the test runs; of the header only what names the envelope (its DSN names
 * the recording's project).
 */
const recorded = (file: string): Buffer => {
  const bytes = fs.readFileSync(file)
  const { header, items } = parseEnvelope(file.includes('.gz.') ? gunzipSync(bytes) : bytes)
  const today = (text: string) => text.replace(/\d{4}-\d\d-\d\dT/g, `${new Date().toISOString().slice(0, 10)}T`)
  const { event_id: eventId, sent_at: sentAt } = header
  return envelope({ event_id: eventId, ...(typeof sentAt === 'string' && { sent_at: today(sentAt) }) },
    items.filter((i) => i.type === 'session' || i.type === 'sessions').map((i) => [{ type: i.type }, today(i.payload.toString('utf8'))]))
}
/** The envelopes other SDKs recorded (test/fixtures/sentry/<sdk>/) that hold session items, when there are any. */
const sdkSessionFixtures = (): string[] => fs.readdirSync(fixtures, { withFileTypes: true }).filter((d) => d.isDirectory())
  .flatMap((d) => fs.readdirSync(path.join(fixtures, d.name)).filter((f) => f.endsWith('.envelope')).map((f) => path.join(fixtures, d.name, f)))
  .filter((file) => recorded(file).includes('"type":"session'))
const hex = () => crypto.randomUUID().replaceAll('-', '')

for (const engine of testEngines()) {
  describe(`releases API [${engine}]`, () => {
    let t: TestApp
    const t0 = Date.now() - 60_000
    const ours = (key: string, release: string, events: Record<string, unknown>[], user?: string, environment = 'production') =>
      t.ingest(batch(key, events, { release, environment, ...(user !== undefined && { user: { id: user } }) }))
    const list = async (query = '') => json<ReleaseList>(await t.get(`/api/v1/releases${query}`))
    const find = async (release: string, environment: string | null = 'production') =>
      (await list('?limit=200')).releases.find((r) => r.release === release && r.environment === environment)
    const session = (sid: string, release: string, fields: Record<string, unknown> = {}) => envelope({ sent_at: new Date().toISOString() }, [
      [{ type: 'session' }, { sid, did: 'sentry-user', init: true, started: new Date(t0).toISOString(), timestamp: new Date().toISOString(), status: 'ok', errors: 0, attrs: { release, environment: 'production' }, ...fields }],
    ])

    before(async () => {
      t = await startTestApp(engine)
      await ours('visit-ok', '1.0.0', [{ type: 'CLICK', message: 'button#buy', createdAt: t0 }], 'alice')
      await ours('visit-handled', '1.0.0', [{ type: 'ERROR', message: 'TypeError: handled', createdAt: t0 + 10 }], 'bob')
      await ours('visit-crash', '1.0.0', [{ type: 'CLICK', message: 'button#pay', createdAt: t0 + 20 }], 'carol')
    })
    after(() => t.close())

    it('counts our SDK\'s visits: ok, errored, and one that crashes later moves from ok to crashed', async () => {
      assert.deepEqual(await find('1.0.0').then((r) => r && [r.sessions, r.errored, r.crashed, r.users, r.crashFreeRate]), [3, 1, 0, 3, 1])
      await ours('visit-crash', '1.0.0', [{ type: 'ERROR', message: 'Uncaught TypeError: boom in 1.0.0', createdAt: t0 + 30 }], 'carol')
      const r = await find('1.0.0')
      assert.ok(r)
      assert.deepEqual([r.sessions, r.errored, r.crashed, r.users], [3, 1, 1, 3])
      assert.equal(r.crashFreeRate, 2 / 3)
      assert.equal(r.crashFreeUsers, 2 / 3)
      assert.equal(r.newIssues, 2, 'the handled error and the crash opened an issue each in 1.0.0')
    })

    it('stores Sentry session items (the recorded one too): a resend and an update count once, a Sentry-only visit not again', async () => {
      const file = path.join(fixtures, 'session.envelope')
      for (let i = 0; i < 2; i++) {
        const res = await postEnvelope(t, recorded(file))
        assert.deepEqual(json(res), { stored: { session: 1 }, dropped: {} })
      }
      const others = sdkSessionFixtures()
      for (const other of others) {
        const res = json<{ stored: Record<string, number>; dropped: Record<string, number> }>(await postEnvelope(t, recorded(other)))
        assert.deepEqual(res.dropped, {}, `${other}: every session item is kept`)
      }
      if (others.length > 0) {
        // Node 13 (3 by sid, 10 in aggregates), each Python 12 (2 and 10), Ruby 12 (aggregates only): none counted twice.
        const server = await find('shop@1.4.0')
        assert.deepEqual(server && [server.sessions, server.crashed, server.errored, server.users], [49, 21, 12, 0])
        // Envelopes whose header names them (@sentry/node's sent_at) and sessions by sid: sent again, nothing new.
        const resendable = (file: string) => { const b = recorded(file).toString(); return b.startsWith('{"sent_at"') || !b.includes('"type":"sessions"') }
        for (const other of others.filter(resendable)) await postEnvelope(t, recorded(other))
        assert.equal((await find('shop@1.4.0'))?.sessions, 49, 'replayed again: nothing new')
      }
      const shop = await find('shop@1.2.3', 'test')
      assert.deepEqual(shop && [shop.sessions, shop.users, shop.crashFreeRate], [1, 1, 1])
      const sid = hex()
      await postEnvelope(t, session(sid, '2.0.0'))
      // The crash arrives as an event (its visit made only from Sentry events) and as the session's update.
      const id = hex()
      await postEnvelope(t, envelope({ event_id: id }, [[{ type: 'event' }, errorEvent(id, { release: '2.0.0' })]]))
      await postEnvelope(t, session(sid, '2.0.0', { init: false, status: 'crashed', errors: 1 }))
      const r = await find('2.0.0')
      assert.ok(r)
      assert.deepEqual([r.sessions, r.crashed, r.users, r.crashFreeRate, r.crashFreeUsers, r.newIssues], [1, 1, 1, 0, 0, 1])
    })

    it('adds aggregates once, without users when they name none', async () => {
      const body = envelope({ sent_at: new Date().toISOString() }, [[{ type: 'sessions' }, {
        attrs: { release: 'api@7', environment: 'production' },
        aggregates: [{ started: new Date(t0).toISOString(), exited: 97, crashed: 3 }],
      }]])
      assert.deepEqual(json(await postEnvelope(t, body)), { stored: { sessions: 1 }, dropped: {} })
      await postEnvelope(t, body)
      const r = await find('api@7')
      assert.deepEqual(r && [r.sessions, r.crashed, r.users, r.crashFreeRate, r.crashFreeUsers], [100, 3, 0, 0.97, null])
      // A bare header (as sentry-python and sentry-ruby send) names no envelope: equal counts twice are two flushes.
      const bare = envelope({}, [[{ type: 'sessions' }, { attrs: { release: 'api@8' }, aggregates: [{ started: new Date(t0).toISOString(), exited: 1 }] }]])
      await postEnvelope(t, bare)
      await postEnvelope(t, bare)
      assert.equal((await find('api@8', null))?.sessions, 2)
    })

    it('pages newest first with limit/offset and a cursor, filters by environment and period', async () => {
      await ours('visit-staging', '1.0.0', [{ type: 'CLICK', message: 'x', createdAt: t0 + 40 }], 'dave', 'staging')
      const all = await list()
      assert.equal(all.total, all.releases.length)
      const firstSeen = all.releases.map((r) => r.firstSeenAt)
      assert.deepEqual(firstSeen, [...firstSeen].sort().reverse())
      const first = await list('?limit=2')
      assert.equal(first.releases.length, 2)
      assert.ok(first.next)
      const second = await list(`?limit=2&after=${first.next}`)
      assert.deepEqual([...first.releases, ...second.releases].map((r) => `${r.release}/${r.environment ?? ''}`),
        all.releases.slice(0, 4).map((r) => `${r.release}/${r.environment ?? ''}`))
      assert.deepEqual((await list('?offset=1&limit=1')).releases.map((r) => r.release), [all.releases[1]?.release])
      const staging = await list('?environment=staging')
      assert.deepEqual(staging.releases.map((r) => [r.release, r.sessions]), [['1.0.0', 1]])
      assert.equal((await list(`?to=${new Date(t0 - DAY_MS).toISOString()}`)).total, 0)
      assert.equal((await list(`?from=${new Date(t0 - DAY_MS).toISOString()}`)).total, all.total)
      assert.equal((await t.get('/api/v1/releases?limit=0')).statusCode, 400)
    })

    it('gets one release by its URL-encoded name, with its days and the issues it opened; unknown ones are 404', async () => {
      const res = await t.get(`/api/v1/releases/${encodeURIComponent('1.0.0')}?environment=production`)
      assert.equal(res.statusCode, 200, res.body)
      const detail = json<ReleaseDetail>(res)
      assert.equal(detail.sessions, 3, 'the row\'s fields at the top, as the list\'s')
      assert.equal(detail.release, '1.0.0')
      assert.deepEqual(detail.days.map((d) => d.sessions), [3])
      assert.ok(detail.issues.some((i) => i.title.includes('boom in 1.0.0')))
      const several = await t.get('/api/v1/releases/1.0.0')
      assert.equal(several.statusCode, 400)
      assert.equal(json<{ parameter: string }>(several).parameter, 'environment')
      const shop = json<ReleaseDetail>(await t.get(`/api/v1/releases/${encodeURIComponent('shop@1.2.3')}`))
      assert.equal(shop.environment, 'test')
      // A release with sessions in an environment and without one: `environment=` (empty) names the latter.
      await t.ingest(batch('visit-bare', [{ type: 'CLICK', message: 'a', createdAt: t0 }], { release: '3.0.0' }))
      await ours('visit-prod', '3.0.0', [{ type: 'CLICK', message: 'a', createdAt: t0 }])
      assert.equal((await t.get('/api/v1/releases/3.0.0')).statusCode, 400)
      const bare = json<ReleaseDetail>(await t.get('/api/v1/releases/3.0.0?environment='))
      assert.deepEqual([bare.environment, bare.sessions], [null, 1])
      for (const url of ['/api/v1/releases/nope', '/api/v1/releases/1.0.0?environment=nowhere']) {
        const missing = await t.get(url)
        assert.equal(missing.statusCode, 404)
        assert.equal(json<{ code: string }>(missing).code, 'not_found')
      }
    })

    it('erasure and retention take their sessions out of the counts', async () => {
      await eraseVisitor(t.app.db, t.app.recordings.stores, t.project.id, { userId: 'carol' }, 'full')
      await eraseVisitor(t.app.db, t.app.recordings.stores, t.project.id, { userId: 'sentry-user' }, 'full')
      const r = await find('1.0.0')
      assert.deepEqual(r && [r.sessions, r.crashed, r.users], [2, 0, 2])
      assert.deepEqual(await find('2.0.0').then((x) => x && [x.sessions, x.users, x.crashFreeRate]), [0, 0, null])
      await sweep(t.app.db, Date.now() + 400 * DAY_MS)
      const after = await list('?limit=200')
      assert.deepEqual(after.releases.map((x) => x.sessions + x.users), after.releases.map(() => 0), 'every count back to zero')
    })
  })
}
