/** Rage and dead clicks from a Sentry replay's click detector (src/sentry/clicks.ts), on segments the SDK really sent. */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { MAX_REQUEST_INFLATED_BYTES } from '../../../src/contract/limits.ts'
import { InflateBudget } from '../../../src/http/inflate.ts'
import { replayClicks } from '../../../src/sentry/clicks.ts'
import { parseEnvelope } from '../../../src/sentry/envelope.ts'
import { recordingChunk } from '../../../src/sentry/replay.ts'

const T = 1_795_000_000_000
const PAGE = 'https://shop.example/orders/7'

/** The events a recorded replay segment gives, as recordingChunk reads it. */
async function segmentEvents(name: string) {
  const items = parseEnvelope(fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'sentry', 'vitals', `${name}.envelope`))).items
  const replay = JSON.parse(items.find((i) => i.type === 'replay_event')?.payload.toString('utf8') ?? '{}') as { replay_id: string; segment_id: number }
  const recording = items.find((i) => i.type === 'replay_recording')
  assert.ok(recording)
  const read = await recordingChunk(replay.replay_id, recording.payload, replay.segment_id, new InflateBudget(MAX_REQUEST_INFLATED_BYTES))
  assert.ok('events' in read, JSON.stringify(read))
  return read.events
}

/** A replay breadcrumb of the click detector, as an rrweb custom event. */
const crumb = (category: string, data: Record<string, unknown>, node: Record<string, unknown> = { tagName: 'button', textContent: 'Pay now', attributes: { id: 'pay' } }) =>
  ({ type: 5, timestamp: T, data: { tag: 'breadcrumb', payload: { timestamp: T / 1000, type: 'default', category, data: { nodeId: 3, node, ...data } } } })

describe('rage and dead clicks of a Sentry replay', () => {
  it('ui.multiClick of five clicks on Pay now: a RAGE_CLICK on its page', async () => {
    const events = (await segmentEvents('stream-rage-click')).filter((e) => e.type === 'RAGE_CLICK')
    assert.deepEqual(events.map(({ id: _id, createdAt: _at, ...e }) => e),
      [{ type: 'RAGE_CLICK', selector: 'button#pay', text: 'Pay now', count: 5, url: 'http://localhost:35161/orders/43?lifecycle=stream' }])
  })

  it('ui.slowClickDetected of one click that timed out on Help: a DEAD_CLICK', async () => {
    const events = (await segmentEvents('stream-dead-click')).filter((e) => e.type === 'DEAD_CLICK')
    assert.deepEqual(events.map(({ id: _id, createdAt: _at, ...e }) => e),
      [{ type: 'DEAD_CLICK', selector: 'button.btn.ghost', text: 'Help', url: 'http://localhost:35161/orders/43?lifecycle=stream' }])
  })

  it('a slow click of three or more is a rage click however it ended; fewer clicks that got a late answer, or a double-click, are neither', () => {
    const events = replayClicks([
      crumb('ui.slowClickDetected', { clickCount: 4, endReason: 'mutation', timeAfterClickMs: 5000, url: PAGE }),
      crumb('ui.slowClickDetected', { clickCount: 1, endReason: 'mutation', timeAfterClickMs: 5000, url: PAGE }),
      crumb('ui.multiClick', { clickCount: 2, url: PAGE }),
      crumb('ui.click', {}),
      { type: 3, timestamp: T, data: { source: 2 } },
    ], 4, undefined)
    assert.deepEqual(events, [{ id: 'sentry-click-4-0', type: 'RAGE_CLICK', createdAt: T, selector: 'button#pay', text: 'Pay now', count: 4, url: PAGE }])
  })

  it('names the element by id, name or two classes; drops masked text; takes the segment\'s page when the crumb has none', () => {
    const dead = (node: Record<string, unknown>) => crumb('ui.slowClickDetected', { clickCount: 1, endReason: 'timeout' }, node)
    const events = replayClicks([
      dead({ tagName: 'INPUT', textContent: '', attributes: { name: 'q', class: 'search' } }),
      dead({ tagName: 'a', textContent: '**** ***', attributes: { class: 'nav  link   big' } }),
      dead({ tagName: 'button', textContent: '  Open\n  menu ', attributes: {} }),
      dead({ textContent: 'no tag' }),
    ], 0, PAGE)
    assert.deepEqual(events.map((e) => [e.id, e.selector, e.text, e.url]), [
      ['sentry-click-0-0', 'input[name=q]', undefined, PAGE],
      ['sentry-click-0-1', 'a.nav.link', undefined, PAGE],
      ['sentry-click-0-2', 'button', 'Open menu', PAGE],
    ])
  })
})
