import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { joinAnswer, LARGE_ANSWER_CHARS, separated } from '../../../src/http/send.ts'

describe('joinAnswer', () => {
  it('joins a small answer into one string', () => {
    const parts = ['{"items":[', ...separated(['1', '"é"', '{"a":"😀"}']), ']}']
    assert.equal(joinAnswer(parts), '{"items":[1,"é",{"a":"😀"}]}')
  })

  it('writes a large answer into one UTF-8 buffer of the same text, multi-byte characters across the pieces', () => {
    const item = JSON.stringify({ text: 'é😀\u2028 '.repeat(200) })
    const parts = ['{"items":[', ...separated(Array.from({ length: Math.ceil(LARGE_ANSWER_CHARS / item.length) + 1 }, () => item)), ']}']
    const joined = parts.join('')
    assert.ok(joined.length >= LARGE_ANSWER_CHARS)
    const answer = joinAnswer(parts)
    assert.ok(Buffer.isBuffer(answer), 'a buffer, not a string in the heap')
    assert.equal(answer.length, Buffer.byteLength(joined))
    assert.equal(answer.toString('utf8'), joined)
  })
})

describe('separated', () => {
  it('puts a comma between each two items only', () => {
    assert.deepEqual(separated([]), [])
    assert.deepEqual(separated(['a']), ['a'])
    assert.deepEqual(separated(['a', 'b', 'c']), ['a', ',', 'b', ',', 'c'])
  })
})
