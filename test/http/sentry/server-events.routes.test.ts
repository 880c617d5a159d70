/**
 * What the server SDKs' recorded requests (test/fixtures/sentry/<sdk>) become: each event in the right visit, its
 * breadcrumbs read under that SDK's keys, grouped and titled as Sentry's users expect (docs/sentry.md), on both engines.
 * The recordings' end user is alice (user-42) at 127.0.0.1; here her address is 192.0.2.7 and every request comes
 * from the app server's 10.1.2.3, as behind a real deployment.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { envelope, errorEvent, postEnvelope, recordedRequests, replayRecorded, SERVER_SDKS, type ServerSdk } from '../../helpers/sentry.ts'

interface Frame { function: string | null; file: string | null; inApp: boolean; context: { line: string } | null; cause?: number }
interface Event { id: string; type: string; message: string | null; url?: string; method?: string; statusCode: number | null; stack: string | null; issueId: string | null; frames: Frame[] | null }
interface Visit { id: string; ip: string | null; browser: string | null; user: { id: string } | null; tags: Record<string, string> | null }
interface Issue { id: string; title: string; culprit: string | null; events: number }

/** Each SDK's names: the exception its app raises, its chain, its script's crash, and the file of its app code. */
const EXPECTED: Record<ServerSdk, { type: string; chain: [string, string]; script: string; appFile: RegExp }> = {
  'python-2': { type: 'json.decoder.JSONDecodeError', chain: ['ValueError: bad order', "KeyError: 'sku'"], script: 'json.decoder.JSONDecodeError', appFile: /python-app\.py$/ },
  'python-1': { type: 'json.decoder.JSONDecodeError', chain: ['ValueError: bad order', "KeyError: 'sku'"], script: 'json.decoder.JSONDecodeError', appFile: /python-app\.py$/ },
  node: { type: 'PaymentDeclined', chain: ['Error: checkout failed', 'TypeError: price is undefined'], script: 'SyntaxError', appFile: /node-app\.mjs$/ },
  ruby: { type: 'Shop::PaymentDeclined', chain: ['ArgumentError: bad order', 'KeyError: key not found: :sku'], script: 'JSON::ParserError', appFile: /shop\.rb$/ },
}

// As long as the recorded 127.0.0.1: Python's items state their length in bytes.
const ALICE_IP = '192.0.2.7'

/** What the project holds: each visit's and each issue's event counts, by id (a resend may reorder the lists). */
async function stored(t: TestApp): Promise<unknown> {
  const sessions = json<{ sessions: { id: string; events: unknown }[] }>(await t.get('/api/v1/sessions?limit=100')).sessions
  const issues = json<{ issues: { id: string; events: number; sessions: number }[] }>(await t.get('/api/v1/issues?limit=100')).issues
  const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)
  return { sessions: sessions.sort(byId).map((s) => [s.id, s.events]), issues: issues.sort(byId).map((i) => [i.id, i.events, i.sessions]) }
}
const asAlice = (text: string) => text.replaceAll('"ip_address":"127.0.0.1"', `"ip_address":"${ALICE_IP}"`).replaceAll('"REMOTE_ADDR":"127.0.0.1"', `"REMOTE_ADDR":"${ALICE_IP}"`)

for (const engine of testEngines()) {
  for (const sdk of SERVER_SDKS) {
    describe(`${sdk} SDK events as Sentry's users expect [${engine}]`, () => {
      const expected = EXPECTED[sdk]
      let t: TestApp
      let visits: Visit[]
      let alice: Visit
      let events: Event[]
      let issues: Map<string, Issue>
      const errorAt = (path: string) => events.find((e) => e.type === 'ERROR' && e.url?.endsWith(path))

      const replayAll = async () => {
        for (const request of recordedRequests(sdk)) {
          const res = await replayRecorded(t, sdk, request, { edit: asAlice, remoteAddress: '10.1.2.3' })
          assert.equal(res.statusCode, 200, `${request.file}: ${res.body}`)
        }
      }

      before(async () => {
        t = await startTestApp(engine)
        await replayAll()
        visits = json<{ sessions: Visit[] }>(await t.get('/api/v1/sessions?limit=100')).sessions
        const found = visits.find((v) => v.user?.id === 'user-42')
        assert.ok(found, `alice has a visit: ${JSON.stringify(visits.map((v) => [v.user, v.ip]))}`)
        alice = found
        events = json<{ events: Event[] }>(await t.get(`/api/v1/sessions/${alice.id}`)).events
        issues = new Map(json<{ issues: Issue[] }>(await t.get('/api/v1/issues?limit=100')).issues.map((i) => [i.id, i]))
      })
      after(() => t.close())

      it('answers every recorded request 200, and stores nothing twice when they are all sent again', async () => {
        const before = await stored(t)
        await replayAll()
        assert.deepEqual(await stored(t), before)
      })

      it('places her events in her visit with her address and browser, and a script\'s crash in a visit of its own', () => {
        assert.equal(alice.ip, ALICE_IP)
        assert.equal(alice.browser, 'Firefox')
        assert.equal(visits.filter((v) => v.user?.id === 'user-42').length, 1)
        assert.ok(!events.some((e) => e.url === undefined && e.message?.startsWith(expected.script) && e.type === 'ERROR'), 'the script crash is not hers')
        const scriptVisits = visits.filter((v) => v.user === null)
        assert.ok(scriptVisits.length >= 1)
        for (const v of scriptVisits) assert.notEqual(v.ip, ALICE_IP)
      })

      it('reads the SDK\'s HTTP breadcrumbs: the 503 is an HTTP_ERROR with its method, the 200 is no event', () => {
        const requests = events.filter((e) => e.type === 'HTTP_ERROR')
        assert.deepEqual([...new Set(requests.map((e) => `${e.method ?? ''} ${String(e.statusCode)} ${new URL(e.url ?? '').pathname}`))], ['POST 503 /payments'])
        const issue = issues.get(requests[0]?.issueId ?? '')
        assert.match(issue?.title ?? '', /^POST .*\/payments → 503$/)
      })

      it('titles the error with its type as the language names it, blames the app\'s code, and groups by the app\'s frames', () => {
        const grouped = ['/cart', '/checkout', '/refund'].map(errorAt)
        const ids = grouped.map((e) => e?.issueId)
        assert.equal(new Set(ids).size, 3, `three app functions raise it: three issues (${ids.join(', ')})`)
        for (const id of ids) {
          const issue = issues.get(id ?? '')
          assert.ok(issue)
          assert.ok(issue.title.startsWith(`${expected.type}: `), issue.title)
          assert.match(issue.culprit ?? '', new RegExp(`${expected.appFile.source.slice(0, -1)}\\)?$`))
        }
      })

      it('keeps a chained exception as one event and one issue, the chain in order', () => {
        const chained = events.filter((e) => e.type === 'ERROR' && e.url?.endsWith('/order'))
        assert.equal(chained.length, 1)
        const [error] = chained
        assert.ok(error?.stack)
        assert.ok(error.stack.startsWith(`${expected.chain[0]}\n`), error.stack.split('\n')[0])
        assert.match(error.stack, new RegExp(`\\nCaused by: ${expected.chain[1].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\n|$)`))
        assert.equal(issues.get(error.issueId ?? '')?.events, 1)
      })

      it('keeps info and warning messages as messages, an error message as an ERROR', () => {
        const messages = events.filter((e) => e.url?.endsWith('/messages') && ['MESSAGE', 'ERROR'].includes(e.type)).map((e) => [e.type, e.message])
        assert.deepEqual(messages.sort(), [
          ['ERROR', 'payment provider answered 503'], ['MESSAGE', 'checkout opened'], ['MESSAGE', 'stock below threshold for A1'],
        ])
      })

      it('shows the SDK\'s frames: the app\'s marked in_app, with the source context the SDK read', async () => {
        const error = errorAt('/cart')
        assert.ok(error?.frames)
        const top = error.frames.find((f) => f.inApp)
        assert.ok(top, 'an in-app frame')
        assert.match(top.file ?? '', expected.appFile)
        assert.ok(top.context, 'its source context')
        assert.ok(error.frames.every((f) => !f.inApp || expected.appFile.test(f.file ?? '')), 'only the app\'s files are in_app')
        const detail = json<{ latestEvent: { event: Event } }>(await t.get(`/api/v1/issues/${error.issueId ?? ''}`))
        assert.ok(detail.latestEvent.event.frames?.filter((f) => f.inApp).every((f) => f.context !== null))
      })
    })
  }
}

for (const engine of testEngines()) {
  describe(`visits of server events [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())

    const send = async (id: string, fields: Record<string, unknown>) => {
      const res = await postEnvelope(t, envelope({ event_id: id }, [[{ type: 'event' }, errorEvent(id, { platform: 'python', ...fields })]]), { remoteAddress: '10.1.2.3' })
      assert.equal(res.statusCode, 200, res.body)
    }
    const visitOf = async (eventId: string) => {
      const { sessions } = json<{ sessions: (Visit & { events: { total: number } })[] }>(await t.get('/api/v1/sessions?limit=100'))
      for (const v of sessions) {
        const { events } = json<{ events: Event[] }>(await t.get(`/api/v1/sessions/${v.id}`))
        if (events.some((e) => e.id === eventId)) return v
      }
      return undefined
    }

    it('an event with no user never joins a visit with one, even from the same address and browser; a user\'s later event merges its tags', async () => {
      const ua = { request: { url: 'https://api.example/pay', headers: [['User-Agent', 'curl/8.5.0']] } }
      await send('a0000000000000000000000000000001', { ...ua, user: { id: 'bob' }, tags: { tenant: 'acme', region: 'eu' } })
      await send('a0000000000000000000000000000002', { ...ua, tags: { job: 'nightly' } })
      await send('a0000000000000000000000000000003', { ...ua, user: { id: 'bob' }, tags: { region: 'us', plan: 'pro' } })
      const bob = await visitOf('a0000000000000000000000000000001')
      const script = await visitOf('a0000000000000000000000000000002')
      assert.ok(bob && script)
      assert.notEqual(script.id, bob.id)
      assert.equal(script.user, null)
      assert.equal((await visitOf('a0000000000000000000000000000003'))?.id, bob.id)
      assert.deepEqual(bob.tags, { tenant: 'acme', region: 'us', plan: 'pro' })
      assert.equal(bob.ip, '10.1.2.3', 'no address in the event: the connection\'s')
    })

    it('the end user\'s address: user.ip_address, {{auto}} meaning the connection\'s, else request.env.REMOTE_ADDR', async () => {
      await send('b0000000000000000000000000000001', { user: { id: 'u1', ip_address: '192.0.2.44' }, request: { env: { REMOTE_ADDR: '192.0.2.99' } } })
      await send('b0000000000000000000000000000002', { user: { id: 'u2', ip_address: '{{auto}}' }, request: { env: { REMOTE_ADDR: '192.0.2.99' } } })
      await send('b0000000000000000000000000000003', { user: { id: 'u3' }, request: { env: { REMOTE_ADDR: '192.0.2.99' } } })
      assert.deepEqual(await Promise.all(['1', '2', '3'].map(async (n) => (await visitOf(`b000000000000000000000000000000${n}`))?.ip)),
        ['192.0.2.44', '10.1.2.3', '192.0.2.99'])
    })
  })
}
