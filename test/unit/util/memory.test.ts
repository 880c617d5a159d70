import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'
import { GROUPING_CACHE_BYTES } from '../../../src/issues/limits.ts'
import { INDEXED_TEXTS_CACHE_BYTES } from '../../../src/search/limits.ts'
import { STACK_CACHE_BYTES } from '../../../src/sourcemaps/limits.ts'
import { groupEvents } from '../../../src/issues/grouping.ts'
import { rememberTexts } from '../../../src/search/indexing.ts'
import { eventRecord } from '../../helpers/factories.ts'

// The collector, as `node --expose-gc` would give it, so the heap is measured without garbage in it.
v8.setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const liveHeap = (): number => {
  gc()
  return process.memoryUsage().heapUsed
}

describe('memory kept between requests', () => {
  it('the grouping, stack and search-text caches stay within their budgets, whatever their entries hold', async () => {
    const before = liveHeap()
    // One-off errors (ids in every message and stack, as real ones carry) and many visits' texts: each cache sees
    // far more than it may keep.
    for (let batch = 0; batch < 3000; batch++) {
      const events = Array.from({ length: 20 }, (_, k) => {
        const n = batch * 20 + k
        return eventRecord(`e${n}`, n, k % 2 === 0 ? 'ERROR' : 'HTTP_ERROR', {
          message: `Uncaught TypeError: Order ${n} of user ${k}@shop.example has no items`,
          stack: `TypeError: Order ${n} has no items\n    at u (https://shop.example/static/app-7RZI5MVM.js:1:${4000 + k})\n`
            + '    at Object.checkout (https://shop.example/static/app-7RZI5MVM.js:1:9120)\n'
            + '    at HTMLButtonElement.<anonymous> (https://shop.example/static/vendor-Db-Q2xY9.js:2:311)',
          url: `https://shop.example/api/orders/${n}/items`, method: 'POST', statusCode: 500,
        })
      })
      await groupEvents(events)
    }
    for (let visit = 0; visit < 20_000; visit++) {
      rememberTexts([{ visit: `project\u0000visit-${visit}`, hashes: Array.from({ length: 50 }, (_, i) => visit * 50 + i), row: {
        project_id: 'project', session_id: `visit-${visit}`, part: 0, page: '', body: '' } }])
    }
    const grown = liveHeap() - before
    // The budgets are estimates that err high: 8.7 MB measured against 12 MB of budgets (70 MB when the first two
    // counted their keys' length and the third its visits).
    const budget = GROUPING_CACHE_BYTES + STACK_CACHE_BYTES + INDEXED_TEXTS_CACHE_BYTES
    assert.ok(grown < budget, `the caches grew the live heap by ${(grown / 1048576).toFixed(1)} MB; their budgets are ${budget / 1048576} MB`)
  })
})
