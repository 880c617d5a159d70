import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_TAGS, MAX_USER_ID_LENGTH } from '../../../common/limits.ts'
import { labelsOf, mapFeedback, mapSentryEvent, mapUserReport, sentryId } from '../../../src/sentry/event.ts'
import { sentryTime } from '../../../src/sentry/values.ts'
import { SENTRY_MAX_CONTEXT_CHARS, SENTRY_MAX_FRAME_NAME_LENGTH } from '../../../src/sentry/limits.ts'
import { MAX_FRAMES } from '../../../src/sourcemaps/stack.ts'

const ID = '9ec79c33ec9942ab8353589fcb2e04dc'
const T = 1_795_000_000 // seconds
const own = (url: string) => url.includes('/ingest/v1/')

describe('Sentry event mapping', () => {
  it('an exception becomes an ERROR with its type, value and frames as a V8 stack, newest first', () => {
    const mapped = mapSentryEvent({
      event_id: ID, timestamp: T + 0.5, platform: 'javascript', request: { url: 'https://shop.example/cart' },
      exception: { values: [{ type: 'TypeError', value: 'x is undefined', stacktrace: { frames: [
        { filename: 'https://shop.example/app.js', function: 'main', lineno: 1, colno: 10 },
        { filename: 'https://shop.example/app.js', function: '?', lineno: 2, colno: 5 },
        { filename: 'https://shop.example/app.js', function: 'pay', lineno: 3, colno: 7 },
      ] } }] },
    }, {}, 0, own)
    assert.equal(mapped.eventId, ID)
    assert.deepEqual(mapped.events, [{
      id: ID, type: 'ERROR', createdAt: (T + 0.5) * 1000, message: 'TypeError: x is undefined', url: 'https://shop.example/cart',
      stack: 'TypeError: x is undefined\n    at pay (https://shop.example/app.js:3:7)\n    at https://shop.example/app.js:2:5\n    at main (https://shop.example/app.js:1:10)',
    }])
  })

  it('a chain of exceptions is one ERROR: the thrown one, then each cause under a Caused by line; a fingerprint is kept', () => {
    const frame = (fn: string) => ({ stacktrace: { frames: [{ filename: 'https://shop.example/app.js', function: fn, lineno: 1, colno: 2 }] } })
    const mapped = mapSentryEvent({
      event_id: ID, platform: 'javascript', fingerprint: ['checkout', 'pay'],
      exception: { values: [{ type: 'TypeError', value: 'price is undefined', ...frame('price') }, { type: 'Error', value: 'checkout failed', ...frame('checkout') }] },
    }, {}, 5000, own)
    assert.deepEqual(mapped.events.map((e) => [e.id, e.message, e.fingerprint, e.createdAt, e.stack]), [[ID, 'Error: checkout failed', 'checkout pay', 5000,
      'Error: checkout failed\n    at checkout (https://shop.example/app.js:1:2)\nCaused by: TypeError: price is undefined\n    at price (https://shop.example/app.js:1:2)']])
    assert.equal(mapSentryEvent({ fingerprint: ['{{ default }}'], message: 'm', level: 'error' }, {}, 0, own).events[0]?.fingerprint, undefined)
  })

  it('a server SDK\'s frames are kept structured: its in_app marks decide, runtime library code never is the app\'s, context on the app\'s', () => {
    const error = mapSentryEvent({
      event_id: ID, platform: 'python',
      exception: { values: [{ type: 'JSONDecodeError', module: 'json.decoder', value: 'Expecting value', stacktrace: { frames: [
        { filename: 'shop/orders.py', abs_path: '/srv/shop/orders.py', function: 'load_order', lineno: 12, in_app: true,
          pre_context: ['a', 'b', 'c', 'd', 'e', 'f'], context_line: '    return json.loads(body)', post_context: ['g'] },
        { filename: 'vendor/thing.py', abs_path: '/srv/vendor/thing.py', function: 'helper', lineno: 3, context_line: 'x' },
        { filename: 'json/decoder.py', abs_path: '/usr/lib/python3.11/json/decoder.py', function: 'raw_decode', lineno: 355, in_app: true, context_line: 'y' },
      ] } }] },
    }, {}, 0, own).events[0]
    assert.ok(error)
    assert.equal(error.message, 'json.decoder.JSONDecodeError: Expecting value')
    assert.deepEqual(error.frames?.map((f) => [f.function, f.inApp, f.context]), [
      ['raw_decode', false, null],
      ['helper', false, null],
      ['load_order', true, { pre: ['b', 'c', 'd', 'e', 'f'], line: '    return json.loads(body)', post: ['g'] }],
    ])
    assert.match(error.stack ?? '', /^json\.decoder\.JSONDecodeError: Expecting value\n {4}at raw_decode \(\/usr\/lib\/python3\.11\/json\/decoder\.py:355\)/)
    // No frame marked: not marked false is the app's, as for our own SDK.
    const ruby = mapSentryEvent({ platform: 'ruby', exception: { values: [{ type: 'Shop::PaymentDeclined', value: 'card', stacktrace: { frames: [
      { abs_path: '/srv/app.rb', function: 'pay', lineno: 4 }, { abs_path: '/srv/lib.rb', function: 'call', lineno: 9, in_app: false },
    ] } }] } }, {}, 0, own).events[0]
    assert.ok(ruby)
    assert.deepEqual(ruby.frames?.map((f) => [f.function, f.inApp]), [['call', false], ['pay', true]])
    assert.equal(ruby.message, 'Shop::PaymentDeclined: card')
  })

  it('a message event is an ERROR at level error or fatal, a MESSAGE otherwise', () => {
    assert.deepEqual(mapSentryEvent({ event_id: ID, message: 'boom', level: 'fatal' }, {}, 0, own).events.map((e) => [e.type, e.message]), [['ERROR', 'boom']])
    assert.deepEqual(mapSentryEvent({ event_id: ID, logentry: { formatted: 'hello' }, level: 'info' }, {}, 0, own).events.map((e) => [e.type, e.message]), [['MESSAGE', 'hello']])
    // @sentry/node's captureMessage with attachStacktrace: the message as a synthetic exception.
    const synthetic = (level: string) => mapSentryEvent({ event_id: ID, message: 'cache cold', level, platform: 'node', exception: { values: [
      { value: 'cache cold', mechanism: { type: 'generic', synthetic: true }, stacktrace: { frames: [{ filename: '/srv/app.js', function: 'warm', lineno: 1 }] } },
    ] } }, {}, 0, own).events.map((e) => [e.type, e.message])
    assert.deepEqual(synthetic('warning'), [['MESSAGE', 'cache cold']])
    assert.deepEqual(synthetic('debug'), [['MESSAGE', 'cache cold']])
    assert.deepEqual(synthetic('error'), [['ERROR', 'cache cold']])
  })

  it('breadcrumbs become clicks, inputs, navigations, failed requests and console errors, with ids from their content', () => {
    const crumbs = [
      { timestamp: T, category: 'ui.click', message: 'body > button#pay' },
      { timestamp: T + 1, category: 'ui.input', message: 'input#email' },
      { timestamp: T + 2, category: 'navigation', data: { from: '/', to: '/cart' } },
      { timestamp: T + 3, category: 'fetch', type: 'http', data: { method: 'POST', url: '/api/pay', status_code: 502 } },
      { timestamp: T + 4, category: 'fetch', type: 'http', data: { method: 'GET', url: '/api/ok', status_code: 200 } },
      { timestamp: T + 5, category: 'xhr', type: 'http', level: 'error', data: { method: 'GET', url: 'https://api.example/x' } },
      { timestamp: T + 6, category: 'fetch', type: 'http', data: { method: 'POST', url: 'https://sw.example/ingest/v1/batch', status_code: 503 } },
      { timestamp: T + 7, category: 'console', level: 'error', message: 'Payment failed' },
      { timestamp: T + 8, category: 'console', level: 'log', message: 'noise' },
      { timestamp: T + 9, category: 'sentry.event', message: 'earlier' },
    ]
    const event = { event_id: ID, message: 'x', level: 'error', request: { url: 'https://shop.example/' }, breadcrumbs: { values: crumbs } }
    const events = mapSentryEvent(event, {}, 0, own).events
    assert.deepEqual(events.map((e) => [e.type, e.message ?? null, e.url ?? null, e.statusCode ?? null, e.method ?? null]), [
      ['CLICK', 'body > button#pay', null, null, null],
      ['INPUT', 'input#email', null, null, null],
      ['NAVIGATION', null, 'https://shop.example/cart', null, null],
      ['HTTP_ERROR', null, 'https://shop.example/api/pay', 502, 'POST'],
      ['HTTP_ERROR', 'The request failed (network error)', 'https://api.example/x', null, 'GET'],
      ['CONSOLE_ERROR', 'Payment failed', null, null, null],
      ['ERROR', 'x', 'https://shop.example/', null, null],
    ])
    // The next error resends the same crumbs: they keep their ids, so they are stored once.
    const again = mapSentryEvent({ ...event, event_id: 'a'.repeat(32) }, {}, 0, own).events
    assert.deepEqual(again.slice(0, -1).map((e) => e.id), events.slice(0, -1).map((e) => e.id))
  })

  it('bounds a server SDK\'s frames: names and paths cut, source context kept on the newest frames only', () => {
    const long = 'x'.repeat(600)
    const frames = Array.from({ length: 60 }, (_, i) => ({
      abs_path: `/srv/app/${'d/'.repeat(600)}f${i}.py`, function: `fn${i}${'n'.repeat(2000)}`, lineno: i + 1, in_app: true,
      pre_context: Array.from({ length: 8 }, () => long), context_line: long, post_context: Array.from({ length: 8 }, () => long),
    }))
    const error = mapSentryEvent({ platform: 'python', exception: { values: [{ type: 'E', stacktrace: { frames } }] } }, {}, 0, own).events[0]
    assert.ok(error?.frames)
    assert.equal(error.frames.length, MAX_FRAMES)
    assert.ok(error.frames.every((f) => (f.function?.length ?? 0) <= SENTRY_MAX_FRAME_NAME_LENGTH && (f.file?.length ?? 0) <= SENTRY_MAX_FRAME_NAME_LENGTH))
    const kept = error.frames.filter((f) => f.context !== null)
    assert.equal(kept[0], error.frames[0], 'the newest frame keeps its context')
    assert.deepEqual([kept[0]?.context?.pre.length, kept[0]?.context?.line.length], [5, 500])
    const chars = kept.reduce((n, f) => n + [...(f.context?.pre ?? []), f.context?.line ?? '', ...(f.context?.post ?? [])].join('').length, 0)
    assert.ok(chars <= SENTRY_MAX_CONTEXT_CHARS && kept.length < error.frames.length, `${chars} characters on ${kept.length} frames`)
  })

  it('reads every server SDK\'s HTTP breadcrumb keys: a 1xx-3xx request is no event, a 4xx/5xx one keeps its method', () => {
    const crumb = (n: number, category: string, type: string, data: Record<string, unknown>) => ({ timestamp: T + n, category, type, data })
    const crumbs = [
      crumb(1, 'httplib', 'http', { 'http.method': 'GET', url: 'http://inv.internal/stock', 'http.response.status_code': 200 }),
      crumb(2, 'httplib', 'http', { 'http.method': 'POST', url: 'http://pay.internal/charge', 'http.response.status_code': 503 }),
      crumb(3, 'http', 'http', { 'http.request.method': 'PUT', url: 'http://pay.internal/refund', status_code: 409 }),
      crumb(4, 'net.http', 'info', { method: 'DELETE', url: 'http://pay.internal/card', status: 500 }),
      crumb(5, 'net.http', 'info', { method: 'GET', url: 'http://inv.internal/stock', status: 304 }),
      crumb(6, 'httplib', 'http', { method: 'PATCH', url: 'http://pay.internal/plan', status_code: 101 }),
    ]
    const events = mapSentryEvent({ event_id: ID, message: 'x', level: 'info', breadcrumbs: crumbs }, {}, 0, own).events
    assert.deepEqual(events.filter((e) => e.type === 'HTTP_ERROR').map((e) => [e.method, e.statusCode, e.url]), [
      ['POST', 503, 'http://pay.internal/charge'], ['PUT', 409, 'http://pay.internal/refund'], ['DELETE', 500, 'http://pay.internal/card'],
    ])
  })

  it('a server SDK\'s end user: user.ip_address ({{auto}}: the connection\'s), else request.env.REMOTE_ADDR; the User-Agent header in any form', () => {
    assert.equal(labelsOf({ user: { ip_address: '192.0.2.1' }, request: { env: { REMOTE_ADDR: '192.0.2.2' } } }).ip, '192.0.2.1')
    assert.equal(labelsOf({ user: { ip_address: '{{auto}}' }, request: { env: { REMOTE_ADDR: '192.0.2.2' } } }).ip, undefined)
    assert.equal(labelsOf({ request: { env: { REMOTE_ADDR: '::ffff:192.0.2.2' } } }).ip, '192.0.2.2')
    assert.equal(labelsOf({ user: { ip_address: 'not an address' } }).ip, undefined)
    assert.equal(labelsOf({ request: { headers: [['user-agent', 'Mozilla/5.0 Firefox/133.0']] } }).userAgent, 'Mozilla/5.0 Firefox/133.0')
    assert.equal(labelsOf({ request: { headers: { 'USER-AGENT': 'UA/2' } } }).userAgent, 'UA/2')
  })

  it('user, tags, release, environment, page, User-Agent and replay id label the visit, within the ingest limits', () => {
    const tags = Object.fromEntries(Array.from({ length: MAX_TAGS + 5 }, (_, i) => [`t${i}`, i]))
    const labels = labelsOf({
      user: { id: 'u'.repeat(MAX_USER_ID_LENGTH + 10), email: 'a@example.com', ip_address: '{{auto}}' },
      tags: { ...tags, 'bad key': 'x', replayId: ID, obj: { no: 1 } }, release: 'shop@1.2.3', environment: 'production',
      request: { url: 'https://shop.example/p', headers: { 'User-Agent': 'UA/1' } }, contexts: { replay: { replay_id: ID } },
      sdk: { settings: { infer_ip: 'never' } },
    })
    assert.equal(labels.user?.id.length, MAX_USER_ID_LENGTH)
    assert.deepEqual(labels.user.traits, { email: 'a@example.com' })
    assert.equal(Object.keys(labels.tags ?? {}).length, MAX_TAGS)
    assert.ok(!('replayId' in (labels.tags ?? {})) && !('bad key' in (labels.tags ?? {})))
    assert.equal(labels.tags?.t3, '3')
    assert.deepEqual([labels.release, labels.environment, labels.page, labels.userAgent, labels.replayId, labels.noIp],
      ['shop@1.2.3', 'production', 'https://shop.example/p', 'UA/1', ID, true])
    assert.equal(labelsOf({ user: { username: 'ann' } }).user?.id, 'ann')
    assert.equal(labelsOf({}, { trace: { replay_id: ID.toUpperCase() } }).replayId, ID)
    assert.deepEqual(labelsOf({ user: 'nope', tags: [['a', 'b'], ['c']] }), { tags: { a: 'b' } })
  })

  it('feedback and legacy user reports become USER_REPORT', () => {
    const feedback = mapFeedback({
      event_id: ID, timestamp: T, type: 'feedback',
      contexts: { feedback: { message: 'Checkout broke', url: 'https://shop.example/cart', replay_id: ID } },
    }, {}, 0)
    assert.deepEqual(feedback.events, [{ id: ID, type: 'USER_REPORT', createdAt: T * 1000, message: 'Checkout broke', url: 'https://shop.example/cart' }])
    assert.equal(feedback.replayId, ID)
    const report = mapUserReport({ event_id: ID, name: 'Ann', email: 'ann@example.com', comments: 'It broke' }, {}, 7)
    assert.deepEqual(report.events.map((e) => [e.type, e.message, e.createdAt]), [['USER_REPORT', 'It broke', 7]])
    assert.equal(mapUserReport({ event_id: ID, comments: 'It broke' }, {}, 8).eventId, report.eventId, 'a resent report keeps its id')
  })

  it('reads Sentry ids and times in their forms, and nothing else', () => {
    assert.equal(sentryId('9EC79C33-EC99-42AB-8353-589FCB2E04DC'), ID)
    assert.equal(sentryId('nope'), null)
    assert.equal(sentryId(42), null)
    assert.equal(sentryTime(1.5), 1500)
    assert.equal(sentryTime('2026-11-24T10:00:00.5Z'), Date.UTC(2026, 10, 24, 10, 0, 0, 500))
    assert.equal(sentryTime('2026-11-24T10:00:00'), Date.UTC(2026, 10, 24, 10), 'no zone: UTC, as Sentry says')
    assert.equal(sentryTime(-1), undefined)
    assert.equal(sentryTime('yesterday'), undefined)
  })
})
