import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { batchTexts } from '../../../src/search/indexing.ts'
import { normalizeEvent } from '../../../src/events/normalize.ts'
import { noFacts } from '../../../src/visits/facts.ts'
import type { EventInput } from '../../../src/contract/index.ts'

const page = 'https://shop.example/p/7?utm_source=bench'
const event = (e: Omit<EventInput, 'id' | 'createdAt'>, i: number) => normalizeEvent({ id: `e${i}`, createdAt: i, ...e })

describe('a batch\'s searchable text', () => {
  it('searches the page of a vital or a frustrated click as a page visited, stored once, and leaves a vital\'s caption out', () => {
    const inputs: Omit<EventInput, 'id' | 'createdAt'>[] = [
      { type: 'WEB_VITAL', name: 'LCP', value: 4200, url: page },
      { type: 'RAGE_CLICK', selector: 'button#pay', text: 'Pay now', count: 6, url: page },
      { type: 'ERROR', message: 'TypeError: x is undefined', url: page },
      { type: 'HTTP_ERROR', url: 'https://shop.example/api/cart', method: 'POST', statusCode: 500 },
    ]
    const events = inputs.map(event)
    assert.equal(events[0]?.message, 'LCP 4.2 s (poor)')
    const { pages, body } = batchTexts(events, noFacts())
    assert.deepEqual([...pages], [page])
    // The error's page is in `page` already, which q= reads too; the vital's caption is a number, found by vital=.
    assert.deepEqual([...body].sort(), ['Rage click ×6 on Pay now', 'TypeError: x is undefined', 'https://shop.example/api/cart'].sort())
  })
})
