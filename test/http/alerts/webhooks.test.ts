import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import dns from 'node:dns'
import type { IncomingHttpHeaders } from 'node:http'
import type { LookupFunction } from 'node:net'
import { Writable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { WEBHOOK_CHAT_MAX_CHARS, WEBHOOK_ERROR_MAX_CHARS } from '../../../src/alerts/limits.ts'
import { addWebhook } from '../../../src/alerts/service.ts'
import { insertWebhook } from '../../../src/alerts/store.ts'
import type { WebhookWorkerOptions } from '../../../src/alerts/worker.ts'
import { buildApp, type BuildOptions } from '../../../src/app.ts'
import { loadConfig, type Engine } from '../../../src/config.ts'
import { createProject } from '../../../src/projects/service.ts'
import { enqueueCommitted, issueAlert, settledDeliveries, startReceiver } from '../../helpers/alerts.ts'
import { startTestApp, type TestApp } from '../../helpers/app.ts'
import { createTestDatabase } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'
import { eventually } from '../../helpers/wait.ts'
import { newWebhookSecret } from '../../../src/alerts/sign.ts'

const POLL_MS = 50
const BACKOFF_MS = 300
/** Polls every 50 ms and retries after 300 ms, so a test sees a retry without waiting out production's 10 s. */
const FAST: WebhookWorkerOptions = { pollMs: POLL_MS, backoffBaseMs: BACKOFF_MS }

/** Where the attacker's name server points each of its host names: rebind.test at this machine, the others at cloud metadata. */
const REBOUND: Record<string, string> = {
  'rebind.test': '127.0.0.1', 'aws.test': '169.254.169.254', 'linklocal.test': 'fe80::1', 'ec2v6.test': 'fd00:ec2::254', 'azure.test': '168.63.129.16',
}
/** DNS as an attacker's name server answers (REBOUND); other names as the system resolves them. */
const rebinding: LookupFunction = (hostname, options, callback) => {
  const address = REBOUND[hostname]
  if (address === undefined) {
    dns.lookup(hostname, options, callback)
    return
  }
  const family = address.includes(':') ? 6 : 4
  if (options.all) callback(null, [{ address, family }])
  else callback(null, address, family)
}

/**
 * The Standard Webhooks verification, written from the spec (standardwebhooks.com) apart from the service's code:
 * the secret's base64 after `whsec_` is the key; each space-separated `v1,` entry may hold the base64 HMAC-SHA256
 * of "id.timestamp.body"; the timestamp is within 5 minutes of now.
 */
function verified(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const [id, timestamp, signatures] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => headers[name])
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false
  if (!/^whsec_/.test(secret) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false
  const mac = createHmac('sha256', Buffer.from(secret.split('_')[1] ?? '', 'base64')).update(`${id}.${timestamp}.${body}`).digest()
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',')
    const given = Buffer.from(value ?? '', 'base64')
    return version === 'v1' && given.length === mac.length && timingSafeEqual(given, mac)
  })
}

let receiver: Awaited<ReturnType<typeof startReceiver>>
let t: TestApp

/** Before the enclosing suite: a receiver answering `statuses`, and an app that delivers to it; both closed after. */
function receiverAndApp(engine: Engine, statuses: number[], env: Record<string, string>, build: Omit<BuildOptions, 'config'>): void {
  before(async () => {
    receiver = await startReceiver(statuses)
    t = await startTestApp(engine, env, build)
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })
}

for (const engine of testEngines()) {
  describe(`webhook delivery [${engine}]`, () => {
    const privateOk = { WEBHOOK_ALLOW_PRIVATE: 'true', PUBLIC_URL: 'https://sw.example.com/' }

    describe('to a receiver that answers 200', () => {
      receiverAndApp(engine, [200], privateOk, { webhooks: FAST })

      it('posts the alert once, with its payload, webhook-id, webhook-timestamp and a webhook-signature made with the webhook\'s secret', async () => {
        const { secret } = await addWebhook(t.app.db, t.project.id, receiver.url, t.app.config.webhooks)
        assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'whsec_ and the base64 of 32 bytes')
        assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32)
        const alert = issueAlert(t.project.id, { issue: { title: 'TypeError: <b>cart</b> is undefined', events: 4, sessions: 2 } })
        const before = Math.floor(Date.now() / 1000)
        await enqueueCommitted(t.app.db, alert)
        const [row] = await settledDeliveries(t.app.db, t.project.id, 'the delivery', (r) => r.status === 'delivered')
        // The rule is that it is posted once: five more polls send nothing.
        await sleep(POLL_MS * 5)
        assert.equal(receiver.received.length, 1, 'exactly one POST')
        const [request] = receiver.received
        assert.ok(request && row)
        assert.equal(request.headers['webhook-id'], row.id)
        const timestamp = Number(request.headers['webhook-timestamp'])
        assert.ok(timestamp >= before && timestamp <= Math.ceil(Date.now() / 1000), 'Unix seconds of the attempt')
        assert.match(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/)
        assert.ok(verified(secret, request.headers, request.body), 'the signature verifies')
        assert.ok(!verified(secret, request.headers, `${request.body} `), 'a changed body does not')
        assert.ok(!verified(secret, { ...request.headers, 'webhook-id': 'd_other' }, request.body), 'nor another id')
        const other = await addWebhook(t.app.db, t.project.id, `${receiver.url}?other`, t.app.config.webhooks)
        assert.notEqual(other.secret, secret, 'each webhook its own secret')
        assert.ok(!verified(other.secret, request.headers, request.body), 'nor another webhook\'s secret')
        assert.equal(request.headers['content-type'], 'application/json')
        assert.match(String(request.headers['user-agent']), /^Sessionwatch-Webhook\//)
        const body = JSON.parse(request.body) as Record<string, unknown> & { text: string; content: string }
        assert.equal(body.kind, 'new')
        assert.deepEqual(body.project, { id: t.project.id, name: 'Shop' })
        assert.deepEqual(body.issue, {
          id: alert.issue.id, title: 'TypeError: <b>cart</b> is undefined', type: 'ERROR', culprit: 'checkout.js',
          firstSeenAt: new Date(alert.at).toISOString(), lastSeenAt: new Date(alert.at).toISOString(), events: 4, sessions: 2, assignee: null,
        })
        const link = `https://sw.example.com/app#/p/${t.project.id}/issues/${alert.issue.id}`
        assert.equal(body.url, link)
        assert.ok(body.text.endsWith(`\n${link}`) && body.text.includes('&lt;b&gt;cart&lt;/b&gt;'), body.text)
        assert.ok(body.content.length <= WEBHOOK_CHAT_MAX_CHARS && body.content.includes('`TypeError: <b>cart</b> is undefined`'))
        assert.deepEqual([row.attempts, row.last_status, row.last_error, row.next_attempt_at], [1, 200, null, null])
        assert.ok(row.delivered_at !== null && row.delivered_at >= row.created_at)
      })
    })

    describe('to a receiver that answers 500, then 200', () => {
      receiverAndApp(engine, [500, 200], privateOk, { webhooks: FAST })

      it('records the failure, retries after the backoff with the same id and body, and delivers once', async () => {
        const { secret } = await addWebhook(t.app.db, t.project.id, receiver.url, t.app.config.webhooks)
        await enqueueCommitted(t.app.db, issueAlert(t.project.id))
        const [failed] = await settledDeliveries(t.app.db, t.project.id, 'the first, failed attempt', (r) => r.attempts === 1 && r.status === 'pending')
        assert.deepEqual([failed?.last_status, failed?.last_error], [500, 'receiver says 500'])
        const [row] = await settledDeliveries(t.app.db, t.project.id, 'the retry', (r) => r.status === 'delivered')
        // The rule is that it is delivered once: five more polls send nothing.
        await sleep(POLL_MS * 5)
        assert.equal(receiver.received.length, 2)
        const [first, second] = receiver.received
        assert.ok(first && second && row)
        assert.equal(second.headers['webhook-id'], first.headers['webhook-id'])
        assert.equal(second.body, first.body, 'a retry sends the same body')
        assert.ok(verified(secret, first.headers, first.body) && verified(secret, second.headers, second.body), 'each attempt signed')
        assert.ok(second.at - first.at >= BACKOFF_MS - 20, `retried ${second.at - first.at} ms later`)
        assert.deepEqual([row.attempts, row.last_status, row.last_error], [2, 200, null])
      })
    })

    it('hands a delivery in flight back on close, and the next process on the database delivers it', async () => {
      receiver = await startReceiver([0, 200])
      const database = await createTestDatabase(engine)
      const config = loadConfig({ DATABASE_URL: database.url, RETENTION_SWEEP_SECONDS: '0', ...privateOk })
      try {
        const first = await buildApp({ config, webhooks: FAST })
        const project = await createProject(first.db, { name: 'Restart', domain: 'shop.example' })
        await addWebhook(first.db, project.id, receiver.url, config.webhooks)
        await enqueueCommitted(first.db, issueAlert(project.id))
        await eventually(() => Promise.resolve(receiver.received.length === 1 ? true : null), 'the first attempt (left unanswered)')
        await first.close()
        const second = await buildApp({ config, webhooks: FAST })
        try {
          const [row] = await settledDeliveries(second.db, project.id, 'the delivery after the restart', (r) => r.status === 'delivered')
          assert.equal(receiver.received.length, 2)
          assert.equal(receiver.received[1]?.headers['webhook-id'], row?.id)
          assert.equal(row?.attempts, 1, 'the attempt cut short by the close is not counted')
        } finally {
          await second.close()
        }
      } finally {
        await receiver.close()
        await database.cleanup()
      }
    })

    describe('to a receiver that answers 500 at length', () => {
      receiverAndApp(engine, [500], privateOk, { webhooks: { ...FAST, backoffBaseMs: 60_000 } })

      it(`keeps only the first ${WEBHOOK_ERROR_MAX_CHARS} characters of the answer`, async () => {
        receiver.answer = () => `Internal error. ${'x'.repeat(5000)}`
        await addWebhook(t.app.db, t.project.id, receiver.url, t.app.config.webhooks)
        await enqueueCommitted(t.app.db, issueAlert(t.project.id))
        const [row] = await settledDeliveries(t.app.db, t.project.id, 'the failed attempt', (r) => r.attempts === 1)
        assert.equal(row?.last_status, 500)
        assert.equal(row.last_error, `Internal error. ${'x'.repeat(5000)}`.slice(0, WEBHOOK_ERROR_MAX_CHARS))
        assert.ok(row.last_error.length <= 300, `a short excerpt, not ${row.last_error.length} characters of the receiver's page`)
      })
    })

    describe('with WEBHOOK_ALLOW_PRIVATE, to link-local and cloud metadata addresses', () => {
      receiverAndApp(engine, [200], privateOk, { webhooks: { ...FAST, lookup: rebinding } })

      it('refuses them on adding and at connect time, however the host name resolves, and records why', async () => {
        for (const host of ['169.254.169.254', '[fe80::1]', '[fd00:ec2::254]', '168.63.129.16']) {
          await assert.rejects(addWebhook(t.app.db, t.project.id, `http://${host}/hook`, t.app.config.webhooks), /link-local or cloud metadata/, host)
        }
        // Host names pass the check on adding: only their addresses say where they lead.
        const named = ['aws.test', 'linklocal.test', 'ec2v6.test', 'azure.test']
        for (const host of named) await addWebhook(t.app.db, t.project.id, `http://${host}:${receiver.port}/hook`, t.app.config.webhooks)
        const planted = ['169.254.169.254', '[fe80::1]', '[fd00:ec2::254]', '168.63.129.16', '[::ffff:169.254.1.1]']
        for (const [i, host] of planted.entries()) {
          await insertWebhook(t.app.db, { project_id: t.project.id, id: `wh_planted_${i}`, url: `http://${host}:${receiver.port}/hook`, secret: newWebhookSecret(), created_at: i })
        }
        await enqueueCommitted(t.app.db, issueAlert(t.project.id))
        const rows = await settledDeliveries(t.app.db, t.project.id, 'the refusals', (r) => r.status === 'failed')
        assert.equal(rows.length, named.length + planted.length)
        assert.equal(receiver.received.length, 0, 'nothing reached the receiver')
        for (const row of rows) {
          assert.match(row.last_error ?? '', /^refused: .*link-local or cloud metadata address/, row.webhook_id)
          assert.deepEqual([row.attempts, row.last_status, row.next_attempt_at], [1, null, null], 'failed at once, no retries')
        }
      })
    })

    describe('without WEBHOOK_ALLOW_PRIVATE', () => {
      receiverAndApp(engine, [200], {}, { webhooks: { ...FAST, lookup: rebinding } })

      it('refuses at connect time every address of this machine, however the host name resolves, and records why', async () => {
        // Added as a host name, rebind.test passes the check on adding: only its address says where it leads.
        await addWebhook(t.app.db, t.project.id, `http://rebind.test:${receiver.port}/hook`, t.app.config.webhooks)
        // The others could not be added (the add check refuses them); planted directly, the connection refuses them too.
        const planted = [`http://127.0.0.1:${receiver.port}/hook`, `http://localhost:${receiver.port}/hook`, `http://[::ffff:127.0.0.1]:${receiver.port}/hook`]
        for (const [i, url] of planted.entries()) await insertWebhook(t.app.db, { project_id: t.project.id, id: `wh_planted_${i}`, url, secret: newWebhookSecret(), created_at: i })
        await enqueueCommitted(t.app.db, issueAlert(t.project.id))
        const rows = await settledDeliveries(t.app.db, t.project.id, 'the refusals', (r) => r.status === 'failed')
        assert.equal(receiver.received.length, 0, 'nothing reached the receiver')
        const why = new Map(rows.map((r) => [r.webhook_id, r.last_error ?? '']))
        assert.match(why.get('wh_planted_0') ?? '', /^refused: 127\.0\.0\.1 is a loopback address/)
        assert.match(why.get('wh_planted_1') ?? '', /^refused: localhost → (127\.0\.0\.1|::1) is a loopback address/)
        assert.match(why.get('wh_planted_2') ?? '', /^refused: ::ffff:7f00:1 is an IPv4-mapped IPv6 address/)
        const rebind = rows.find((r) => !r.webhook_id.startsWith('wh_planted'))
        assert.match(rebind?.last_error ?? '', /^refused: rebind\.test → 127\.0\.0\.1 is a loopback address.*WEBHOOK_ALLOW_PRIVATE=true/)
        for (const row of rows) assert.deepEqual([row.attempts, row.last_status, row.next_attempt_at], [1, null, null], 'failed at once, no retries')
      })
    })
  })
}

if (testEngines().includes('postgres')) {
  describe('webhook worker through a database outage [postgres]', () => {
    const lines: string[] = []
    const stream = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(chunk.toString()); done() } })
    receiverAndApp('postgres', [200], { WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: FAST, logger: { level: 'info', stream } })

    it('logs the outage once, recovers by itself, and delivers afterwards', async () => {
      await addWebhook(t.app.db, t.project.id, receiver.url, t.app.config.webhooks)
      // Every connection of the app ends at once, as in a server restart; polls in the meantime fail.
      const admin = new pg.Client(t.databaseUrl)
      await admin.connect()
      for (let i = 0; i < 5; i++) {
        await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')
        // Not a wait for anything: the outage lasts a while, long enough for the worker to poll into it.
        await sleep(60)
      }
      await admin.end()
      await enqueueCommitted(t.app.db, issueAlert(t.project.id))
      await settledDeliveries(t.app.db, t.project.id, 'the delivery after the outage', (r) => r.status === 'delivered')
      const outage = lines.filter((l) => l.includes('database unreachable'))
      assert.equal(outage.length, 1, lines.join(''))
      assert.ok(lines.some((l) => l.includes('database reachable again')))
      assert.ok(!lines.some((l) => l.includes('webhook worker failed')), 'an outage is not a worker bug')
    })
  })
}
