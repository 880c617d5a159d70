import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { gunzipSync, gzipSync } from 'node:zlib'
import { compressHere, makeCompressor, type CompressionWorker } from '../../../../browser/sdk/compressor.ts'

const JSON_TEXT = JSON.stringify([{ type: 4, timestamp: 1, data: { href: 'https://shop.example/' } }, { type: 3, timestamp: 2, data: { text: 'é ✓' } }])
const inflate = (bytes: Uint8Array) => gunzipSync(bytes).toString('utf8')

/** A stand-in Worker: records what it is sent; the test answers or fails it. */
function fakeWorker() {
  const sent: { id: number; json: string }[] = []
  let terminated = false
  const worker: CompressionWorker = {
    postMessage(message) { sent.push(message) },
    onmessage: null,
    onerror: null,
    terminate() { terminated = true },
  }
  // Uint8Array.from copies: a Buffer's .buffer (and Buffer#slice's) is the pool it shares with other bytes
  const answer = (id: number, data?: Uint8Array) => { worker.onmessage?.({ data: { id, ...(data && { data: Uint8Array.from(data).buffer }) } }) }
  const fail = () => { worker.onerror?.({ preventDefault() { /* the page's console stays quiet */ } }) }
  return { worker, sent, answer, fail, terminated: () => terminated }
}

describe('the recorder\'s compressor', () => {
  it('compresses on this thread to gzip of the JSON (UTF-8) when there is no worker', async () => {
    assert.equal(inflate(await compressHere(JSON_TEXT)), JSON_TEXT)
    assert.equal(inflate(await makeCompressor(null)(JSON_TEXT)), JSON_TEXT)
  })

  it('hands chunks to the worker, one start for all, and takes its bytes back', async () => {
    const fake = fakeWorker()
    let starts = 0
    const compress = makeCompressor(() => { starts++; return fake.worker })
    const first = compress('[1]')
    const second = compress('[2]')
    assert.deepEqual(fake.sent.map((m) => m.json), ['[1]', '[2]'])
    assert.equal(starts, 1)
    const [a, b] = fake.sent
    assert.ok(a && b)
    fake.answer(b.id, gzipSync('[2]'))
    fake.answer(a.id, gzipSync('[1]'))
    assert.deepEqual([inflate(await first), inflate(await second)], ['[1]', '[2]'])
  })

  it('compresses here whatever the worker could not: a failed job, a worker the page refuses (CSP), one that cannot start', async () => {
    const fake = fakeWorker()
    const compress = makeCompressor(() => fake.worker)
    const failedJob = compress('[1]')
    fake.answer(fake.sent[0]?.id ?? -1)
    assert.equal(inflate(await failedJob), '[1]')

    const waiting = compress('[2]')
    fake.fail()
    assert.equal(inflate(await waiting), '[2]', 'a job waiting when the worker fails')
    assert.equal(fake.terminated(), true)
    assert.equal(inflate(await compress('[3]')), '[3]', 'and every job after it')
    assert.equal(fake.sent.length, 2, 'nothing more goes to a failed worker')

    const throwing = makeCompressor(() => { throw new Error('SecurityError: worker-src') })
    assert.equal(inflate(await throwing('[4]')), '[4]')
  })
})
