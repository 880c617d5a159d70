import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { gzipSync } from 'node:zlib'
import Fastify from 'fastify'
import { MAX_CHUNK_JSON_BYTES } from '../../../src/contract/limits.ts'
import { joinList, sendGzippedJson } from '../../../src/http/send.ts'

describe('joinList', () => {
  it('writes the items, a comma between each two only, into one UTF-8 buffer of the same text', () => {
    const text = (b: Buffer) => b.toString('utf8')
    assert.equal(text(joinList('{"items":[', ['1', '"é"', '{"a":"😀"}'], ']}')), '{"items":[1,"é",{"a":"😀"}]}')
    assert.equal(text(joinList('[', ['1'], ']')), '[1]')
    assert.equal(text(joinList('[', [], ']')), '[]')
    const item = JSON.stringify({ text: 'é😀\u2028 '.repeat(200) })
    const items = Array.from({ length: 100 }, () => item)
    const joined = `{"é":[${items.join(',')}],"😀":1}`
    const answer = joinList('{"é":[', items, '],"😀":1}')
    assert.equal(answer.length, Buffer.byteLength(joined), 'multi-byte characters in every piece')
    assert.equal(text(answer), joined)
  })
})

describe('sendGzippedJson', () => {
  it('inflates for a client without gzip within the bounds of any inflation; beyond them 413, and gzip still works', async () => {
    const small = gzipSync('[{"type":4,"timestamp":1}]')
    // Stored before the bounds held: 17 MiB of JSON in 17 KiB.
    const large = gzipSync(Buffer.concat([Buffer.from('['), Buffer.alloc(MAX_CHUNK_JSON_BYTES, 0x20), Buffer.from(']')]))
    const app = Fastify()
    app.get('/small', (request, reply) => sendGzippedJson(request, reply, small))
    app.get('/large', (request, reply) => sendGzippedJson(request, reply, large))
    const plain = await app.inject({ url: '/small' })
    assert.equal(plain.body, '[{"type":4,"timestamp":1}]')
    const refused = await app.inject({ url: '/large' })
    // Fastify's own error handler (the service's answers the same status and code, test/http): the AppError's.
    assert.equal(refused.statusCode, 413)
    assert.equal(refused.json<{ code: string }>().code, 'payload_too_large')
    assert.match(refused.json<{ message: string }>().message, /^The stored data inflates to more than .*Accept-Encoding: gzip/)
    const compressed = await app.inject({ url: '/large', headers: { 'accept-encoding': 'gzip' } })
    assert.equal(compressed.statusCode, 200)
    assert.equal(compressed.rawPayload.length, large.length)
    await app.close()
  })
})
