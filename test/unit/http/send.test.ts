import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { joinList, LARGE_ANSWER_CHARS } from '../../../src/http/send.ts'

describe('joinList', () => {
  it('joins a small answer into one string, a comma between each two items only', () => {
    assert.equal(joinList('{"items":[', ['1', '"é"', '{"a":"😀"}'], ']}'), '{"items":[1,"é",{"a":"😀"}]}')
    assert.equal(joinList('[', ['1'], ']'), '[1]')
    assert.equal(joinList('[', [], ']'), '[]')
  })

  it('writes a large answer into one UTF-8 buffer of the same text, multi-byte characters in every piece', () => {
    const item = JSON.stringify({ text: 'é😀\u2028 '.repeat(200) })
    const items = Array.from({ length: Math.ceil(LARGE_ANSWER_CHARS / item.length) + 1 }, () => item)
    const joined = `{"é":[${items.join(',')}],"😀":1}`
    assert.ok(joined.length >= LARGE_ANSWER_CHARS)
    const answer = joinList('{"é":[', items, '],"😀":1}')
    assert.ok(Buffer.isBuffer(answer), 'a buffer, not a string in the heap')
    assert.equal(answer.length, Buffer.byteLength(joined))
    assert.equal(answer.toString('utf8'), joined)
  })
})
