import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EnvelopeError, parseEnvelope } from '../../../src/sentry/envelope.ts'

const env = (...parts: (string | Buffer)[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)))

describe('Sentry envelope framing', () => {
  it('reads items with and without length, as the SDK writes them (no trailing newline)', () => {
    const parsed = parseEnvelope(env('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}\n{"type":"event"}\n{"message":"hi"}\n{"type":"attachment","length":10}\nhelloworld'))
    assert.equal(parsed.header.event_id, '9ec79c33ec9942ab8353589fcb2e04dc')
    assert.deepEqual(parsed.items.map((i) => [i.type, i.payload.toString()]), [['event', '{"message":"hi"}'], ['attachment', 'helloworld']])
    assert.equal(parsed.stopped, null)
  })

  it('takes a length in bytes, so a payload may hold newlines and multi-byte characters', () => {
    const payload = Buffer.from('{"segment_id":0}\n\u00e9\n\x00\xff', 'latin1')
    const parsed = parseEnvelope(env('{}\n', `{"type":"replay_recording","length":${payload.length}}\n`, payload, '\n{"type":"event"}\n{}'))
    assert.deepEqual(parsed.items[0]?.payload, payload)
    assert.equal(parsed.items[1]?.type, 'event')
    const utf8 = Buffer.from('{"m":"ü€"}')
    assert.deepEqual(parseEnvelope(env('{}\n', `{"type":"event","length":${utf8.length}}\n`, utf8)).items[0]?.payload, utf8)
  })

  it('accepts a header alone, a trailing newline, an empty last payload, and a \\r as payload', () => {
    assert.deepEqual(parseEnvelope(env('{}')).items, [])
    assert.deepEqual(parseEnvelope(env('{"dsn":"https://k@h/1"}\n')).items, [])
    assert.equal(parseEnvelope(env('{}\n{"type":"event"}\n{}\n')).items.length, 1)
    assert.deepEqual(parseEnvelope(env('{}\n{"type":"session"}')).items.map((i) => i.payload.length), [0])
    assert.equal(parseEnvelope(env('{}\n{"type":"event"}\n{}\r\n')).items[0]?.payload.toString(), '{}\r')
  })

  it('skips nothing it does not know: unknown item types come back with their payload', () => {
    const parsed = parseEnvelope(env('{}\n{"type":"future_thing","length":3}\nabc\n{"type":"event"}\n{}'))
    assert.deepEqual(parsed.items.map((i) => i.type), ['future_thing', 'event'])
  })

  it('stops at a truncated item or an unreadable item header, keeping what came before', () => {
    const truncated = parseEnvelope(env('{}\n{"type":"event"}\n{}\n{"type":"replay_recording","length":100}\nshort'))
    assert.deepEqual(truncated.items.map((i) => i.type), ['event'])
    assert.match(truncated.stopped ?? '', /item 1 \(replay_recording\) is truncated: 100 bytes announced, 5 sent/)
    const badHeader = parseEnvelope(env('{}\n{"type":"event"}\n{}\nnot json\n{}'))
    assert.equal(badHeader.items.length, 1)
    assert.match(badHeader.stopped ?? '', /item 1: its header is not a JSON object/)
    assert.match(parseEnvelope(env('{}\n{"length":2}\nab')).stopped ?? '', /with a "type"/)
    assert.match(parseEnvelope(env('{}\n{"type":"x","length":-1}\n')).stopped ?? '', /"length" must be a whole number/)
    assert.match(parseEnvelope(env('{}\n{"type":"x","length":2}\nabc')).stopped ?? '', /not followed by a newline/)
  })

  it('refuses an envelope whose own header is not a JSON object', () => {
    for (const body of ['', 'nope', '[1]\n{"type":"event"}\n{}', 'null']) {
      assert.throws(() => parseEnvelope(env(body)), EnvelopeError, JSON.stringify(body))
    }
  })
})
