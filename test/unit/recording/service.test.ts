import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { acceptsGzip } from '../../../src/http/send.ts'
import { parseChunk } from '../../../src/recording/service.ts'
import { rrwebEvents } from '../../helpers/recording.ts'

describe('parseChunk', () => {
  const summary = (text: string) => {
    const parsed = parseChunk(Buffer.from(text))
    assert.ok(typeof parsed !== 'string', typeof parsed === 'string' ? parsed : '')
    return parsed.summary
  }
  it('counts events, finds their bounds, and sees whether the chunk opens with a full snapshot', () => {
    const events = rrwebEvents(1000, 2)
    assert.deepEqual(summary(JSON.stringify(events)), { count: 4, first: 1000, last: 3000, fullSnapshot: true })
    assert.deepEqual(summary(JSON.stringify(events.slice(2))), { count: 2, first: 2000, last: 3000, fullSnapshot: false })
    // Sentry's first segment: DomContentLoaded, its options (a custom event) and Load come before Meta and the snapshot.
    const sentry = [{ type: 0, timestamp: 900 }, { type: 5, timestamp: 900, data: { tag: 'options' } }, { type: 1, timestamp: 950 }, ...events]
    assert.equal(summary(JSON.stringify(sentry)).fullSnapshot, true)
    const changedFirst = [events[2], ...events]
    assert.equal(summary(JSON.stringify(changedFirst)).fullSnapshot, false, 'a change before the snapshot')
  })
  it('says what is wrong with anything else', () => {
    const problem = (text: string) => {
      const result = parseChunk(Buffer.from(text))
      assert.equal(typeof result, 'string')
      return result as string
    }
    assert.match(problem('{'), /JSON/)
    assert.match(problem('[]'), /non-empty/)
    assert.match(problem('[{"type":1.5,"timestamp":1}]'), /event 0/)
    assert.match(problem('[{"type":3,"timestamp":-1}]'), /event 0/)
    assert.match(problem('[null]'), /event 0/)
  })
})

describe('acceptsGzip', () => {
  it('reads Accept-Encoding with its q-values', () => {
    assert.equal(acceptsGzip('gzip, deflate, br'), true)
    assert.equal(acceptsGzip('br;q=1.0, GZIP;q=0.5'), true)
    assert.equal(acceptsGzip('*'), true)
    assert.equal(acceptsGzip('gzip;q=0'), false)
    assert.equal(acceptsGzip('identity'), false)
    assert.equal(acceptsGzip(undefined), false)
  })
})
