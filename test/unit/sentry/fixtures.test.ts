/** The envelopes the real @sentry/browser sent (test/fixtures/sentry): framing and mapping, without a server. */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { MAX_REQUEST_INFLATED_BYTES } from '../../../src/contract/limits.ts'
import { parseEnvelope } from '../../../src/sentry/envelope.ts'
import { mapFeedback, mapSentryEvent } from '../../../src/sentry/event.ts'
import { InflateBudget } from '../../../src/http/inflate.ts'
import { recordingChunk } from '../../../src/sentry/replay.ts'

const budget = () => new InflateBudget(MAX_REQUEST_INFLATED_BYTES)

const fixture = (name: string): Buffer => fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'sentry', name))
const payloadOf = (name: string, type: string) => {
  const item = parseEnvelope(fixture(name)).items.find((i) => i.type === type)
  assert.ok(item, `${name} holds a ${type} item`)
  return item.payload
}

describe('recorded Sentry envelopes', () => {
  it('frame as the SDK wrote them, compressed ones too', () => {
    const error = fixture('error.envelope')
    assert.deepEqual(parseEnvelope(error).items.map((i) => i.type), ['event'])
    assert.deepEqual(parseEnvelope(gunzipSync(fixture('error.gzip.envelope'))), parseEnvelope(error))
    assert.deepEqual(parseEnvelope(brotliDecompressSync(fixture('error.br.envelope'))), parseEnvelope(error))
    assert.deepEqual(parseEnvelope(fixture('replay-segment.envelope')).items.map((i) => [i.type, i.header.length ?? null]),
      [['replay_event', null], ['replay_recording', payloadOf('replay-segment.envelope', 'replay_recording').length]])
    assert.deepEqual(parseEnvelope(fixture('unknown-item.envelope')).items.map((i) => i.type), ['future_thing', 'event'])
    const truncated = parseEnvelope(fixture('truncated.envelope'))
    assert.deepEqual([truncated.items.map((i) => i.type), truncated.stopped !== null], [['replay_event'], true])
  })

  it('map the error to an ERROR with its frames and breadcrumbs, in its replay', () => {
    const event = JSON.parse(payloadOf('error.envelope', 'event').toString()) as Record<string, unknown>
    const mapped = mapSentryEvent(event, {}, Date.now(), () => false)
    const error = mapped.events.find((e) => e.type === 'ERROR')
    assert.match(error?.message ?? '', /^TypeError: /)
    assert.match(error?.stack ?? '', /\n {4}at checkout \(http:\/\/localhost:\d+\/:\d+:\d+\)/)
    assert.deepEqual(mapped.events.map((e) => e.type).filter((t) => t !== 'ERROR').sort(), ['CLICK', 'HTTP_ERROR'])
    assert.match(mapped.replayId ?? '', /^[0-9a-f]{32}$/)
    assert.equal(mapped.user?.id, 'user-42')
  })

  it('map the feedback to a USER_REPORT, and the replay segment to a chunk', async () => {
    const feedback = mapFeedback(JSON.parse(payloadOf('feedback.envelope', 'feedback').toString()) as Record<string, unknown>, {}, Date.now())
    assert.equal(feedback.events[0]?.message, 'Checkout broke')
    const read = await recordingChunk('b'.repeat(32), payloadOf('replay-segment.envelope', 'replay_recording'), undefined, budget())
    assert.ok('chunk' in read, JSON.stringify(read))
    assert.equal(read.chunk.id, `sentry-${'b'.repeat(32)}-000000`)
    const events = JSON.parse(gunzipSync(read.chunk.gzip).toString()) as { type: number }[]
    assert.ok(events.some((e) => e.type === 2), 'the full snapshot')
  })
})
