import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CONSENT_QUEUE_MAX } from '../../../../common/limits.ts'
import { SESSION_KEY } from '../../../../browser/sdk/core.ts'
import type { SendResult } from '../../../../browser/sdk/transport.ts'
import { sdkInNode, settle } from '../../../helpers/sdk.ts'
import { eventually } from '../../../helpers/wait.ts'

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const messages = (sdk: ReturnType<typeof sdkInNode>) => sdk.transport.posts.flatMap((b) => b.events.map((e) => e.message))

describe('SDK consent', () => {
  it('init({ consent: false }) sends nothing and stores nothing, holding what it captures until consent(true)', async () => {
    const sdk = sdkInNode()
    sdk.init({ consent: false })
    sdk.report('held 1')
    sdk.captureError('held 2')
    await sdk.core().flush()
    sdk.core().flushOnHide()
    // The rule is that nothing leaves: captureError's flushSoon would have sent by now.
    await wait(150)
    assert.deepEqual(sdk.storage.log, [], 'no session key written')
    assert.equal(sdk.transport.posts.length + sdk.transport.beacons.length, 0, 'nothing sent')
    assert.equal(sdk.core().beacon('{}'), false, 'the recorder\'s beacon refused too')
    assert.deepEqual(await sdk.core().sender()('{}'), { ok: false, fatal: true, retryAfterMs: null }, 'and its sends')
    assert.equal(sdk.stats()?.queued, 2)

    sdk.consent(true)
    assert.deepEqual(sdk.storage.log, [`set ${SESSION_KEY}`], 'the session is stored from consent on')
    await eventually(() => Promise.resolve(sdk.stats()?.sent === 2 || null), 'what was held, sent', 1000, 10)
    assert.deepEqual(messages(sdk), ['held 1', 'held 2'], 'what was held leaves soon after consent')
    const key = sdk.transport.posts[0]?.sessionKey
    assert.equal(key, (JSON.parse(sdk.storage.items.get(SESSION_KEY) ?? '{}') as { k?: string }).k)
    assert.equal(sdk.stats()?.sent, 2)
  })

  it('holds at most CONSENT_QUEUE_MAX events, dropping the oldest and counting them as consent', async () => {
    const sdk = sdkInNode()
    sdk.init({ consent: false })
    for (let i = 0; i < CONSENT_QUEUE_MAX + 7; i++) sdk.core().record({ type: 'CLICK', message: `c${i}` })
    assert.equal(sdk.stats()?.queued, CONSENT_QUEUE_MAX)
    assert.deepEqual(sdk.stats()?.dropped, { queue_overflow: 0, rejected: 0, retries_exhausted: 0, consent: 7 })
    sdk.consent(true)
    for (let i = 0; i < 10 && sdk.core().stats().queued > 0; i++) {
      await sdk.core().flush()
      await settle()
    }
    const sent = messages(sdk)
    assert.equal(sent.length, CONSENT_QUEUE_MAX)
    assert.equal(sent[0], 'c7', 'the oldest were dropped')
    assert.equal(sent.at(-1), `c${CONSENT_QUEUE_MAX + 6}`)
  })

  it('consent(false) drops what waits, removes the session key and stops sending; consent(true) resumes in a new session', async () => {
    const sdk = sdkInNode()
    sdk.init({})
    sdk.report('sent')
    await settle()
    const first = sdk.transport.posts[0]?.sessionKey
    assert.ok(sdk.storage.items.has(SESSION_KEY))
    sdk.core().record({ type: 'CLICK', message: 'queued' })
    sdk.consent(false)
    assert.equal(sdk.storage.items.has(SESSION_KEY), false, 'the session key is gone')
    assert.equal(sdk.stats()?.queued, 0)
    assert.equal(sdk.stats()?.dropped.consent, 1)
    sdk.report('after withdrawal')
    await sdk.core().flush()
    sdk.core().flushOnHide()
    assert.deepEqual(messages(sdk), ['sent'])
    assert.equal(sdk.storage.items.has(SESSION_KEY), false, 'and stays gone')

    sdk.consent(false)
    assert.equal(sdk.stats()?.dropped.consent, 2, 'a second withdrawal drops what was held since')
    sdk.report('after consent again')
    sdk.consent(true)
    await eventually(() => Promise.resolve(sdk.transport.posts.length === 2 || null), 'the report held since', 1000, 10)
    assert.deepEqual(messages(sdk), ['sent', 'after consent again'])
    const second = sdk.transport.posts[1]?.sessionKey
    assert.ok(second && second !== first, 'a new session')
  })

  it('a batch waiting for its retry is dropped by consent(false), and never sent again', async () => {
    let answers = 0
    const sdk = sdkInNode((): SendResult => (++answers === 1 ? { ok: false, fatal: false, retryAfterMs: 30 } : { ok: true }))
    sdk.init({})
    sdk.report('retried')
    await settle()
    assert.equal(sdk.transport.posts.length, 1)
    sdk.consent(false)
    // The rule is that the retry, due 30 ms on, never goes.
    await wait(80)
    assert.equal(sdk.transport.posts.length, 1, 'the retry was not sent')
    assert.deepEqual(sdk.stats()?.dropped, { queue_overflow: 0, rejected: 0, retries_exhausted: 0, consent: 1 }, 'counted once, as consent')
    sdk.consent(true)
    sdk.report('next')
    await settle()
    assert.deepEqual(messages(sdk), ['retried', 'next'], 'sending resumes at once')
  })

  it('consent() before init is kept and outranks init\'s option; only true grants', async () => {
    const granted = sdkInNode()
    granted.consent(true)
    granted.init({ consent: false })
    granted.report('r')
    await settle()
    assert.equal(granted.transport.posts.length, 1)

    const withdrawn = sdkInNode()
    withdrawn.consent(false)
    withdrawn.init({})
    withdrawn.report('r')
    await settle()
    assert.equal(withdrawn.transport.posts.length, 0)
    assert.deepEqual(withdrawn.storage.log, [])

    // A consent setting fails closed: only true grants, in init's option and in consent() alike.
    for (const value of ['yes', 'true', 1, null, {}]) {
      const held = sdkInNode()
      held.init({ consent: value as never })
      held.report('r')
      await settle()
      assert.deepEqual([held.transport.posts.length, held.storage.log], [0, []], `init consent ${JSON.stringify(value)}`)
      const withdrawing = sdkInNode()
      withdrawing.init({})
      withdrawing.consent(value as never)
      withdrawing.report('r')
      await settle()
      assert.equal(withdrawing.transport.posts.length, 0, `consent(${JSON.stringify(value)})`)
    }
    const byDefault = sdkInNode()
    byDefault.init({ consent: undefined })
    byDefault.report('r')
    await settle()
    assert.equal(byDefault.transport.posts.length, 1, 'consent left out (or undefined) is the default: granted')
  })
})
