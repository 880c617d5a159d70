import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { requestEvent } from '../../../../browser/sdk/privacy.ts'
import { scrubEvent } from '../../../../browser/sdk/scrub.ts'
import { sdkInNode } from '../../../helpers/sdk.ts'

const SECRET = 'hunter2SECRETvalue'

describe('SDK scrubbing', () => {
  it('masks card numbers in every text field before an event is queued, and keeps the rest', () => {
    const card = '4921 7788 0012 3456'
    const event = {
      type: 'HTTP_ERROR', method: 'POST', statusCode: 402, durationMs: 12, url: `https://shop.example/pay?card=${card.replaceAll(' ', '+')}`,
      message: `Payment failed for ${card}`, stack: `Error: Payment failed for ${card}`, reqBody: `card=${encodeURIComponent(card)}&at=1795237011600`,
      resBody: `{"card":"${card}"}`, fingerprint: `declined ${card}`,
    }
    assert.deepEqual(scrubEvent(event), {
      type: 'HTTP_ERROR', method: 'POST', statusCode: 402, durationMs: 12, url: 'https://shop.example/pay?card=[card …3456]',
      message: 'Payment failed for [card …3456]', stack: 'Error: Payment failed for [card …3456]',
      reqBody: 'card=[card …3456]&at=1795237011600', resBody: '{"card":"[card …3456]"}', fingerprint: 'declined [card …3456]',
    })
    assert.ok(event.message.includes(card), 'the caller\'s object is not changed')
  })
  it('masks a card number or a secret in a clicked element\'s text (RAGE_CLICK, DEAD_CLICK), keeping its selector', () => {
    const event = { type: 'DEAD_CLICK', url: 'https://shop.example/pay', selector: 'button#pay', text: `Pay with 4921 7788 0012 3456 token=${SECRET}` }
    assert.deepEqual(scrubEvent(event), { ...event, text: 'Pay with [card …3456] token=***' })
  })
  it('leaves events without secrets or card numbers, and absent fields, as they are', () => {
    const event = { type: 'CLICK', message: 'button#pay "Pay 49.90"', url: null }
    assert.deepEqual(scrubEvent(event), event)
  })
  it('masks secrets in every text field before an event is queued', () => {
    const event = {
      type: 'HTTP_ERROR', method: 'POST', statusCode: 401, url: `https://api.example/v1/me?access_token=${SECRET}#code=${SECRET}`,
      message: `Authorization: Bearer ${SECRET}`, stack: `Error: login(password: "${SECRET}") failed`,
      reqBody: `{"query":"mutation { login(password: \\"${SECRET}\\") }"}`, resBody: `{"jwt":"${SECRET}","refresh_token":"${SECRET}"}`,
      fingerprint: `sig=${SECRET}`,
    }
    const out = scrubEvent(event)
    assert.ok(!JSON.stringify(out).includes(SECRET), JSON.stringify(out))
    assert.equal(out.url, 'https://api.example/v1/me?access_token=***#code=***')
    assert.equal(out.message, 'Authorization: Bearer ***')
  })
  it('masks a failed request\'s bodies with the page\'s maskFields before cutting them', () => {
    const opts = { slowThresholdMs: 1000, maxBodyChars: 40, bodies: () => true, maskFields: ['iban'] }
    const event = requestEvent(opts, '/api/pay', 'POST', 400, 5, `{"iban":"DE89370400440532013000","cookie":"${SECRET}"}`, `set-cookie=${SECRET}`)
    assert.deepEqual([event?.reqBody, event?.resBody], ['{"iban":"***","cookie":"***"}', 'set-cookie=***'])
  })
  it('sends the landing page\'s URL without the token in its fragment, and events without theirs', async () => {
    const sdk = sdkInNode(undefined, `https://shop.example/welcome?magic=1#access_token=${SECRET}&token_type=bearer`)
    sdk.init({})
    sdk.core().record({ type: 'NAVIGATION', url: `https://shop.example/reset?token=${SECRET}` })
    sdk.report(`my password=${SECRET} does not work`)
    await sdk.core().flush()
    const sent = JSON.stringify(sdk.transport.posts)
    assert.ok(sdk.transport.posts.length > 0 && !sent.includes(SECRET), sent)
    assert.equal(sdk.transport.posts[0]?.page, 'https://shop.example/welcome?magic=1#access_token=***&token_type=***')
  })
})
