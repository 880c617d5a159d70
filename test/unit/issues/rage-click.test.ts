/** Grouping of RAGE_CLICK events (src/issues/fingerprint.ts, rule 4): one element of one page template is one issue. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { groupEvent, type Grouping, type GroupingInput } from '../../../src/issues/fingerprint.ts'

const rage = (url: string | null, selector: string, text?: string): Grouping => {
  const input: GroupingInput = {
    type: 'RAGE_CLICK', message: 'Rage click ×5 on Pay now', stack: null, url, method: null, statusCode: null, fingerprint: null,
    detail: { selector, ...(text !== undefined && { text }) },
  }
  const g = groupEvent(input)
  assert.ok(g, 'grouped')
  return g
}

describe('groupEvent: RAGE_CLICK', () => {
  it('groups one element of one page template, whatever the record, the query, the count and the text', () => {
    const a = rage('https://shop.example/orders/42?tab=pay', 'button#pay', 'Pay now')
    assert.deepEqual(a.components, ['event:RAGE_CLICK', 'selector:button#pay', 'url:https://shop.example/orders/:id'])
    assert.equal(rage('https://shop.example/orders/43', 'button#pay', 'Pay €12').fingerprint, a.fingerprint)
    assert.equal(a.title, 'Rage clicks on "Pay now"')
    assert.equal(a.culprit, 'button#pay on https://shop.example/orders/:id')
  })

  it('splits by element and by page template', () => {
    const one = rage('https://shop.example/orders/42', 'button#pay').fingerprint
    assert.notEqual(rage('https://shop.example/orders/42', 'button#cancel').fingerprint, one)
    assert.notEqual(rage('https://shop.example/cart', 'button#pay').fingerprint, one)
  })

  it('titles the selector when the element has no text; a click without a page is culprit its selector', () => {
    const g = rage(null, 'div.menu > a')
    assert.equal(g.title, 'Rage clicks on "div.menu > a"')
    assert.equal(g.culprit, 'div.menu > a')
  })

  it('keeps its fingerprint: a change here needs a new GROUPING_VERSION', () => {
    assert.equal(rage('https://shop.example/orders/42', 'button#pay').fingerprint, '0dd8c231b80d0b83516aef53c57745a3cf9a1d7896b0d7d701916beebbcc1013')
  })
})
