import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_PROJECT_NAME_LENGTH } from '../../../common/limits.ts'
import { TEXT_LIMITS } from '../../../src/contract/limits.ts'
import { WEBHOOK_BACKOFF_BASE_MS, WEBHOOK_BACKOFF_MAX_MS, WEBHOOK_CHAT_MAX_CHARS, WEBHOOK_CHAT_TITLE_CHARS, WEBHOOK_RETRY_FOR_MS } from '../../../src/alerts/limits.ts'
import { alertFacts, renderBody } from '../../../src/alerts/payload.ts'
import { attemptRecord, DEFAULT_RETRY } from '../../../src/alerts/service.ts'
import type { IssueAlert } from '../../../src/alerts/store.ts'

const T = Date.UTC(2026, 10, 20, 10, 0, 0)

const alert = (over: Partial<IssueAlert['issue']> = {}, kind: IssueAlert['kind'] = 'new'): IssueAlert => ({
  projectId: 'p_1', kind, at: T,
  issue: { id: 'i_1', type: 'ERROR', title: 'TypeError: x is undefined', culprit: 'checkout.js', firstSeenAt: T, lastSeenAt: T + 1000, events: 3, sessions: 1, ...over },
})

const render = (a: IssueAlert, publicUrl: string | null = 'https://sw.example.com', project = 'Shop') =>
  JSON.parse(renderBody(alertFacts(a, project), publicUrl)) as Record<string, unknown> & { text: string; content: string }

describe('webhook payload', () => {
  it('carries the facts, a link to the issue, and the message as text (Slack) and content (Discord)', () => {
    const body = render(alert())
    assert.deepEqual(body.issue, {
      id: 'i_1', title: 'TypeError: x is undefined', type: 'ERROR', culprit: 'checkout.js',
      firstSeenAt: '2026-11-20T10:00:00.000Z', lastSeenAt: '2026-11-20T10:00:01.000Z', events: 3, sessions: 1, assignee: null,
    })
    assert.deepEqual([body.kind, body.project], ['new', { id: 'p_1', name: 'Shop' }])
    assert.equal(body.url, 'https://sw.example.com/app#/p/p_1/issues/i_1')
    assert.equal(body.text, 'New issue in Shop: `TypeError: x is undefined` in `checkout.js` (ERROR, 3 events in 1 session)\n'
      + 'https://sw.example.com/app#/p/p_1/issues/i_1')
    assert.equal(body.content, body.text)
    assert.deepEqual(body.allowed_mentions, { parse: [] })
  })

  it('says a regression is back, and links relatively without PUBLIC_URL (no link in the message)', () => {
    const body = render(alert({ culprit: null }, 'regression'), null)
    assert.equal(body.url, '/app#/p/p_1/issues/i_1')
    assert.equal(body.text, 'Regression in Shop: `TypeError: x is undefined` is back after it was resolved (ERROR, 3 events in 1 session)')
  })

  it('keeps visitor text from becoming markup, links or mentions in Slack and Discord', () => {
    const body = render(alert({ title: 'Boom <!channel> <https://evil.example|click> @everyone `x` **b**\nsecond line' }), null, 'Shop <a> *x*')
    assert.ok(!/[<>]/.test(body.text), 'Slack: no raw angle brackets anywhere')
    assert.match(body.text, /^New issue in Shop &lt;a&gt; \*x\*: `Boom &lt;!channel&gt; &lt;https:\/\/evil\.example\|click&gt; @everyone 'x' \*\*b\*\* second line`/)
    assert.match(body.content, /^New issue in Shop \\<a\\> \\\*x\\\*: `Boom <!channel> <https:\/\/evil\.example\|click> @everyone 'x' \*\*b\*\* second line`/,
      'Discord: the title sits whole in one code span, the name escaped')
  })

  it('keeps content within Discord\'s 2000 characters and the title within its share, whatever their length', () => {
    const body = render(alert({ title: 'T'.repeat(TEXT_LIMITS.message), culprit: 'c'.repeat(TEXT_LIMITS.url) }),
      `https://sw.example.com/${'p'.repeat(1500)}`, 'N'.repeat(MAX_PROJECT_NAME_LENGTH))
    assert.ok(body.content.length <= WEBHOOK_CHAT_MAX_CHARS, `content is ${body.content.length} characters`)
    const title = /`(T+[^`]*)`/.exec(body.text)?.[1] ?? ''
    assert.equal(title.length, WEBHOOK_CHAT_TITLE_CHARS)
    assert.match(title, /…\[truncated \d+ chars\]$/)
    assert.equal((body.issue as { title: string }).title.length, TEXT_LIMITS.message, 'the issue object has the title whole')
  })
})

describe('delivery attempts', () => {
  const queued = { attempts: 0, created_at: T }
  const fail = (status: number | null, retry = true) => ({ ok: false as const, status, error: 'boom', retry })

  it('a 2xx is delivered', () => {
    assert.deepEqual(attemptRecord({ ok: true, status: 204 }, queued, T + 5, DEFAULT_RETRY),
      { status: 'delivered', nextAttemptAt: null, lastStatus: 204, lastError: null, deliveredAt: T + 5 })
  })

  it('retries with doubling waits up to the cap, and fails once the next try would be past 24 hours', () => {
    const waits = [0, 1, 2, 3, 10, 20].map((attempts) => attemptRecord(fail(500), { attempts, created_at: T }, T, DEFAULT_RETRY).nextAttemptAt)
    assert.deepEqual(waits.map((at) => (at ?? 0) - T), [WEBHOOK_BACKOFF_BASE_MS, 2 * WEBHOOK_BACKOFF_BASE_MS, 4 * WEBHOOK_BACKOFF_BASE_MS,
      8 * WEBHOOK_BACKOFF_BASE_MS, WEBHOOK_BACKOFF_MAX_MS, WEBHOOK_BACKOFF_MAX_MS])
    const late = attemptRecord(fail(503), { attempts: 30, created_at: T }, T + WEBHOOK_RETRY_FOR_MS - 1000, DEFAULT_RETRY)
    assert.deepEqual([late.status, late.nextAttemptAt, late.lastStatus, late.lastError], ['failed', null, 503, 'boom'])
  })

  it('fails at once when no retry can help (a 4xx, a redirect, a refused address)', () => {
    for (const status of [400, 404, 301, null]) {
      assert.equal(attemptRecord(fail(status, false), queued, T, DEFAULT_RETRY).status, 'failed', String(status))
    }
  })
})
