/** Web vitals from @sentry/browser's transactions and spans (src/sentry/vitals.ts), on what the SDK really sent. */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { parseEnvelope, type EnvelopeItem } from '../../../src/sentry/envelope.ts'
import { mapPerformance } from '../../../src/sentry/vitals.ts'

const NOW = Date.UTC(2026, 10, 29)
const read = (name: string) => parseEnvelope(fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'sentry', 'vitals', `${name}.envelope`)))
/** The envelope's vitals as a project sees them: [name, value, url, element] each. */
function vitals(name: string, project = 'p1', edit?: (payload: Record<string, unknown>) => void) {
  const envelope = read(name)
  const item = envelope.items.find((i) => i.type === 'transaction' || i.type === 'span') as EnvelopeItem
  const payload = JSON.parse(item.payload.toString('utf8')) as Record<string, unknown>
  edit?.(payload)
  const mapped = mapPerformance({ ...item, payload: Buffer.from(JSON.stringify(payload)) }, envelope.header, NOW, project)
  return { mapped, rows: mapped?.events.map((e) => [e.name, e.value, e.url, e.element]) ?? [] }
}
const span = (fields: Record<string, unknown>): EnvelopeItem => ({ type: 'span', header: { type: 'span' }, payload: Buffer.from(JSON.stringify(fields)) })

describe('web vitals from Sentry performance data', () => {
  it('a pageload transaction: LCP, FCP, TTFB and CLS from its measurements, on its page, in its replay\'s visit', () => {
    const { mapped, rows } = vitals('static-transaction')
    const page = 'http://localhost:35161/orders/42?lifecycle=static'
    assert.deepEqual(rows, [
      ['LCP', 196, page, 'body > main'],
      ['CLS', 0.0349110107421875, page, 'body > main > img#hero.hero.wide[alt="hero"]'],
      ['FCP', 196, page, undefined],
      ['TTFB', 92, page, undefined],
    ])
    assert.equal(mapped?.replayId, '84f7f2790e7d48a3b1c6faae4d9dc207')
    assert.deepEqual([mapped.release, mapped.environment], ['shop@2.0.0', 'test'])
    assert.deepEqual(mapped.events.map((e) => e.id), ['LCP', 'CLS', 'FCP', 'TTFB'].map((n) => `sentry-vital-9a06dd7bbf7701ab-${n}`))
    assert.equal(mapped.events[0]?.createdAt, 1_795_947_394_847, 'at the page load\'s start')
  })

  it('a transaction that is no page load, or a measurement out of bounds or in no unit of time, gives nothing', () => {
    assert.equal(vitals('static-transaction', 'p1', (t) => { (t.contexts as { trace: { op: string } }).trace.op = 'navigation' }).mapped, null)
    const { rows } = vitals('static-transaction', 'p1', (t) => {
      t.measurements = { lcp: { value: -1, unit: 'millisecond' }, fcp: { value: 2, unit: 'byte' }, ttfb: { value: 0.5, unit: 'second' }, cls: { value: 'x' } }
    })
    assert.deepEqual(rows.map(([name, value]) => [name, value]), [['TTFB', 500]])
  })

  it('streamed spans: TTFB and FCP of the pageload span; LCP, CLS and INP spans on the page their page load named', () => {
    const page = 'http://localhost:35161/orders/43?lifecycle=stream'
    assert.deepEqual(vitals('stream-pageload-spans', 'p-stream').rows, [['FCP', 160, page, undefined], ['TTFB', 30.700000002980232, page, undefined]])
    assert.deepEqual(vitals('stream-lcp-span', 'p-stream').rows, [['LCP', 160, page, 'body > main']])
    assert.deepEqual(vitals('stream-cls-span', 'p-stream').rows, [
      ['INP', 320, page, 'body > main > button#slow[type="button"]'],
      ['CLS', 0.0349110107421875, page, 'body > main > img#hero.hero.wide[alt="hero"]'],
    ])
    // Another project never saw that page load: the vital stays, without a URL.
    assert.deepEqual(vitals('stream-lcp-span', 'p-other').rows, [['LCP', 160, undefined, 'body > main']])
  })

  it('a streamed span\'s visit comes from its attributes: replay, release, environment, User-Agent', () => {
    const { mapped } = vitals('stream-lcp-span')
    assert.equal(mapped?.replayId, '472459451306415a80530548e8e07869')
    assert.deepEqual([mapped.release, mapped.environment], ['shop@2.0.0', 'test'])
    assert.match(mapped.userAgent ?? '', /HeadlessChrome/)
    assert.match(mapped.eventId, /^[0-9a-f]{32}$/)
  })

  it('an INP span of the static lifecycle carries its own page', () => {
    assert.deepEqual(vitals('static-inp-span', 'p-unseen').rows,
      [['INP', 320, 'http://localhost:35161/orders/42?lifecycle=static', 'body > main > button#slow[type="button"]']])
  })

  it('a v1 standalone span (SDKs 8 to 10): its measurement, its description as the element, its replay from its data', () => {
    const mapped = mapPerformance(span({
      op: 'ui.interaction.click', description: 'body > button#pay', span_id: 'a1b2c3d4e5f60718', start_timestamp: 1_795_000_000.5,
      measurements: { inp: { value: 250, unit: 'millisecond' } }, data: { 'sentry.op': 'ui.interaction.click', replay_id: 'e'.repeat(32), 'url.full': 'https://shop.example/cart' },
    }), {}, NOW, 'p1')
    assert.deepEqual(mapped?.events, [{
      id: 'sentry-vital-a1b2c3d4e5f60718-INP', type: 'WEB_VITAL', createdAt: 1_795_000_000_500, name: 'INP', value: 250,
      url: 'https://shop.example/cart', element: 'body > button#pay',
    }])
    assert.equal(mapped.replayId, 'e'.repeat(32))
  })

  it('spans without vitals, items that are not JSON, and items over the event limit give nothing', () => {
    assert.equal(mapPerformance(span({ version: 2, items: [{ span_id: 'a', attributes: { 'sentry.op': { value: 'http.client' } } }] }), {}, NOW, 'p1'), null)
    assert.equal(mapPerformance({ type: 'span', header: {}, payload: Buffer.from('not json') }, {}, NOW, 'p1'), null)
    assert.equal(mapPerformance({ type: 'transaction', header: {}, payload: Buffer.alloc(2 * 1024 * 1024, 0x20) }, {}, NOW, 'p1'), null)
  })
})
