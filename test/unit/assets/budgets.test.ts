import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { checkSizes, SIZE_BUDGETS } from '../../../src/assets/budgets.ts'

describe('size budgets of the browser scripts (npm run size)', () => {
  it('prints each figure against its budget', () => {
    const report = checkSizes({ 'sdk.js': 4209, 'recorder.js': 28_160, 'vitals.js': 6100 })
    assert.deepEqual(report, {
      lines: ['sdk.js 4,209 B gzipped (budget 8,192)', 'recorder.js 28,160 B gzipped (budget 40,960)', 'vitals.js 6,100 B gzipped (budget 7,168)'],
      over: false,
    })
  })

  it('fails a script one byte over, and names it', () => {
    const report = checkSizes({ 'sdk.js': SIZE_BUDGETS['sdk.js'], 'recorder.js': SIZE_BUDGETS['recorder.js'] + 1, 'vitals.js': SIZE_BUDGETS['vitals.js'] })
    assert.equal(report.over, true)
    assert.equal(report.lines[1], 'recorder.js 40,961 B gzipped (budget 40,960): OVER BUDGET by 1 B')
    assert.equal(checkSizes({ ...SIZE_BUDGETS, 'vitals.js': SIZE_BUDGETS['vitals.js'] + 1 }).lines[2], 'vitals.js 7,169 B gzipped (budget 7,168): OVER BUDGET by 1 B')
    assert.equal(checkSizes(SIZE_BUDGETS).over, false, 'exactly the budget is within it')
  })
})
