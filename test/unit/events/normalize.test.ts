import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_BATCH_BYTES, TEXT_LIMITS } from '../../../src/contract/limits.ts'
import { truncationMarker } from '../../../common/text.ts'
import { normalizeEvent } from '../../../src/events/normalize.ts'
import { timed } from '../../helpers/budget.ts'

/** The event loop may be blocked this long by one event's text at most (issue 38). */
const BUDGET_MS = 50

/** Hostile bodies the size of a whole ingest request: shapes the scrub pass's patterns try at every position. */
const WORST: Record<string, string> = {
  'a run of ` a=`': ' a='.repeat(MAX_BATCH_BYTES / 3),
  'a run of `"a":`': '"a":'.repeat(MAX_BATCH_BYTES / 4),
  'a run of `Bearer `': 'Bearer '.repeat(MAX_BATCH_BYTES / 7),
  'a run of `password=`': 'password='.repeat(MAX_BATCH_BYTES / 9),
  'a run of `1 `': '1 '.repeat(MAX_BATCH_BYTES / 2),
  'a run of `//a:`': '//a:'.repeat(MAX_BATCH_BYTES / 4),
}

describe('normalizeEvent', () => {
  for (const [name, body] of Object.entries(WORST)) {
    it(`scrubs ${name} (${body.length} characters) within ${BUDGET_MS} ms`, () => {
      const { result: e, ms: elapsed } = timed(() => normalizeEvent({ id: 'e', type: 'HTTP_ERROR', createdAt: 0, url: body, message: body, reqBody: body, resBody: body }))
      assert.ok(elapsed < BUDGET_MS, `${elapsed.toFixed(1)} ms`)
      assert.ok(String(e.reqBody).length <= TEXT_LIMITS.reqBody)
    })
  }

  it('counts every character cut, those past what the scrub pass reads too, and masks a secret at the limit', () => {
    const secret = `${'x'.repeat(TEXT_LIMITS.reqBody - 20)} password=hunter2hunter2 ${'y'.repeat(MAX_BATCH_BYTES)}`
    const e = normalizeEvent({ id: 'e', type: 'HTTP_ERROR', createdAt: 0, reqBody: secret })
    assert.equal(e.reqBody?.length, TEXT_LIMITS.reqBody)
    const body = e.reqBody
    assert.doesNotMatch(body, /hunter/)
    const kept = body.indexOf('…[truncated')
    const scrubbed = secret.length - 'hunter2hunter2'.length + '***'.length
    assert.ok(body.endsWith(truncationMarker(scrubbed - kept)), 'the count is of the whole text as scrubbed')
  })
})
