/**
 * An unmodified @sentry/node with Express 5, in a child process of its own (the SDK instruments Node's globals),
 * given a project's DSN at the service's real address: an error in a request handler arrives as one ERROR.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { ROOT, startNode, type Started } from '../../helpers/cli.ts'
import { testEngines } from '../../helpers/engines.ts'

const SHOP = path.join(ROOT, 'test', 'fixtures', 'sentry', 'record', 'node-app.mjs')
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'

interface Detail {
  session: { browser: string | null; user: { id: string } | null }
  events: { type: string; message: string | null; issueId: string | null; frames: { function: string | null; inApp: boolean; context: unknown }[] | null }[]
}

for (const engine of testEngines()) {
  describe(`@sentry/node live [${engine}]`, () => {
    let t: TestApp
    let shop: Started
    before(async () => {
      t = await startTestApp(engine)
      const service = new URL(await t.app.listen({ host: '127.0.0.1', port: 0 }))
      shop = startNode([SHOP, 'listen'], { SENTRY_DSN: `http://${t.project.dsnKey}@${service.host}/${String(t.project.sentryProjectId)}` })
    })
    after(async () => {
      shop.child.kill('SIGKILL')
      await t.close()
    })

    it('a request that throws arrives, once flushed, as one ERROR with its frames and one issue', async () => {
      const [, port] = await shop.waitFor(/listening (\d+)\n/)
      const res = await fetch(`http://127.0.0.1:${port ?? ''}/cart`, { headers: { 'user-agent': FIREFOX } })
      assert.equal(res.status, 500)
      shop.child.stdin.end()
      const [code] = await once(shop.child, 'exit') as [number | null]
      assert.equal(code, 0, shop.output())

      const list = json<{ sessions: { id: string }[] }>(await t.get('/api/v1/sessions'))
      assert.equal(list.sessions.length, 1, 'one visit')
      const visit = json<Detail>(await t.get(`/api/v1/sessions/${list.sessions[0]?.id ?? ''}`))
      const errors = visit.events.filter((e) => e.type === 'ERROR')
      assert.equal(errors.length, 1, JSON.stringify(visit.events))
      assert.match(errors[0]?.message ?? '', /PaymentDeclined: card declined at cart/)
      const cart = errors[0]?.frames?.find((f) => f.function === 'loadCart')
      assert.ok(cart?.inApp && cart.context !== null, JSON.stringify(errors[0]?.frames))
      assert.equal(visit.session.browser, 'Firefox', 'the end user\'s browser, not the SDK\'s')
      assert.equal(visit.session.user?.id, 'user-42')
      const issues = json<{ issues: { id: string; events: number }[] }>(await t.get('/api/v1/issues'))
      assert.deepEqual(issues.issues.map((i) => [i.id, i.events]), [[errors[0]?.issueId, 1]])
    })
  })
}
