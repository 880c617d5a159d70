import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isCardNumber, luhnValid, maskCards, truncate } from '../../../common/text.ts'

describe('truncate', () => {
  it('leaves short text alone', () => {
    assert.equal(truncate('hello', 5), 'hello')
  })
  it('cuts long text to the limit, ending with a marker that counts what is missing', () => {
    const out = truncate('x'.repeat(10_000), 100)
    assert.equal(out.length, 100)
    const m = /…\[truncated (\d+) chars\]$/.exec(out)
    assert.ok(m)
    assert.equal(out.length - m[0].length + Number(m[1]), 10_000, 'kept + dropped = original')
  })
  it('is idempotent', () => {
    const once = truncate('y'.repeat(500), 64)
    assert.equal(truncate(once, 64), once)
  })
})

describe('luhnValid and isCardNumber', () => {
  it('accepts the networks\' test numbers and rejects a changed digit', () => {
    for (const n of ['4921778800123456', '4111111111111111', '5555555555554444', '2223000048400011', '378282246310005',
      '6011111111111117', '3530111333300000', '4222222222222', '6250941006528599', '4000056655665556007']) {
      assert.ok(isCardNumber(n), n)
    }
    assert.ok(!luhnValid('4921778800123457'))
  })
  it('takes no timestamp or other industry\'s number for a card, even a Luhn-valid one', () => {
    assert.ok(luhnValid('1795237011600') && !isCardNumber('1795237011600'), 'epoch ms, 13 digits')
    assert.ok(luhnValid('1795237011597007') && !isCardNumber('1795237011597007'), 'epoch µs, 16 digits')
    assert.ok(luhnValid('5000000000005') && !isCardNumber('5000000000005'), '13 digits are Visa-only')
    assert.ok(!isCardNumber('411111111111'), '12 digits')
    assert.ok(!isCardNumber('41111111111111111113'), '20 digits')
  })
})

describe('maskCards', () => {
  it('masks a card number in a JSON body, keeping its last four digits and the JSON valid', () => {
    const out = maskCards('{"name":"Ann","card":"4921 7788 0012 3456","exp":"12/27"}')
    assert.equal(out, '{"name":"Ann","card":"[card …3456]","exp":"12/27"}')
    assert.deepEqual(JSON.parse(out), { name: 'Ann', card: '[card …3456]', exp: '12/27' })
  })
  it('masks numbers written with spaces, dashes or none, in messages, forms and URLs', () => {
    assert.equal(maskCards('declined: 4111-1111-1111-1111.'), 'declined: [card …1111].')
    assert.equal(maskCards('Payment failed for 378282246310005'), 'Payment failed for [card …0005]')
    assert.equal(maskCards('card=4111+1111+1111+1111&save=1'), 'card=[card …1111]&save=1')
    assert.equal(maskCards('https://shop.example/pay?card=4111%201111%201111%201111#x'), 'https://shop.example/pay?card=[card …1111]#x')
    assert.equal(maskCards('/pay?q=card%3A%204111111111111111'), '/pay?q=card%3A%20[card …1111]')
    assert.equal(maskCards('Error: bad 4111111111111111\n    at pay (https://shop.example/app.js:1:2)'),
      'Error: bad [card …1111]\n    at pay (https://shop.example/app.js:1:2)')
  })
  it('leaves timestamps, order ids, ids and longer digit runs alone, byte for byte', () => {
    for (const text of [
      '{"createdAt":1795237011597,"at":1795237011600,"us":1795237011597007}', // epoch ms (the second Luhn-valid) and µs
      '{"orderId":"4000000000001"}', // 13 digits, fails Luhn
      'order 4000 0000 0000 1 shipped', 'id=a4111111111111111', 'sku_4111111111111111', '41111111111111111113',
      '4111  1111  1111  1111', // two spaces are not one number
      '12 4111 1111 1111 1111', // part of a longer run of digits
      'phone +1 555 0100 and 1795237011597',
    ]) {
      assert.equal(maskCards(text), text, text)
    }
  })
  it('is idempotent', () => {
    const once = maskCards('4111111111111111 and 5555 5555 5555 4444')
    assert.equal(once, '[card …1111] and [card …4444]')
    assert.equal(maskCards(once), once)
  })
})
