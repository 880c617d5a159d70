import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { maskEventCards } from '../../../../browser/sdk/scrub.ts'

describe('SDK card masking', () => {
  it('masks card numbers in every text field before an event is queued, and keeps the rest', () => {
    const card = '4921 7788 0012 3456'
    const event = {
      type: 'HTTP_ERROR', method: 'POST', statusCode: 402, durationMs: 12, url: `https://shop.example/pay?card=${card.replaceAll(' ', '+')}`,
      message: `Payment failed for ${card}`, stack: `Error: Payment failed for ${card}`, reqBody: `card=${encodeURIComponent(card)}&at=1795237011600`,
      resBody: `{"card":"${card}"}`, fingerprint: `declined ${card}`,
    }
    assert.deepEqual(maskEventCards(event), {
      type: 'HTTP_ERROR', method: 'POST', statusCode: 402, durationMs: 12, url: 'https://shop.example/pay?card=[card …3456]',
      message: 'Payment failed for [card …3456]', stack: 'Error: Payment failed for [card …3456]',
      reqBody: 'card=[card …3456]&at=1795237011600', resBody: '{"card":"[card …3456]"}', fingerprint: 'declined [card …3456]',
    })
    assert.ok(event.message.includes(card), 'the caller\'s object is not changed')
  })
  it('leaves events without card numbers, and absent fields, as they are', () => {
    const event = { type: 'CLICK', message: 'button#pay "Pay 49.90"', url: null }
    assert.deepEqual(maskEventCards(event), event)
  })
})
