import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { TEXT_LIMITS } from '../../../src/contract/limits.ts'
import { groupEvent } from '../../../src/issues/fingerprint.ts'
import { parseStack } from '../../../src/sourcemaps/stack.ts'
import { timed } from '../../helpers/budget.ts'

/** The event loop may be blocked this long by one stack at most (issue 38). */
const BUDGET_MS = 50

/** A text of exactly `length` characters: `head`, then `unit` repeated, then `tail`. */
function fill(head: string, unit: string, tail = '', length = TEXT_LIMITS.stack): string {
  const body = unit.repeat(Math.ceil(length / unit.length)).slice(0, length - head.length - tail.length)
  return head + body + tail
}

const URL = 'https://shop.example/assets/app.js'

/**
 * The stacks that cost stacktrace-parser's regexes and frameName's most: one long line of a character a regex
 * tries from every position, the same as many short lines, and the V8, Firefox and Safari forms around them.
 * Each is the stored maximum, TEXT_LIMITS.stack characters.
 */
const WORST: Record<string, string> = {
  'V8 `at ` and a run of `(`': fill('    at ', '('),
  'a run of `(` alone': fill('', '('),
  'V8 `at ` and a run of spaces': fill('    at ', ' '),
  'V8 `at ` and a run of ` (`': fill('    at ', ' ('),
  'V8 `at ` and a run of `(a@`': fill('    at ', '(a@'),
  'V8 eval frame of `(`': fill('    at eval (eval at ', '('),
  'V8 name of `<` before a location': fill('    at ', '<', ` (${URL}:1:1)`),
  'V8 name of `/<` before a location': fill('    at ', '/<', ` (${URL}:1:1)`),
  'V8 name of ` [as b` before a location': fill('    at a', ' [as b', ` (${URL}:1:1)`),
  'V8 location of digits': fill(`    at (${URL}:`, '1'),
  'V8 location of `:1`': fill(`    at f (${URL}`, ':1', ')'),
  'Firefox `fn(` and `(` before `@`': fill('f(', '(', '@http://a'),
  'Firefox location of `:1`': fill('f@https://a', ':1'),
  'Firefox location of ` line 1`': fill(`f@${URL}`, ' line 1'),
  'Firefox name of `/<` on short lines': fill('', `a${'/<'.repeat(500)}x@${URL}:1:1\n`),
  'a run of `@`': fill('', '@'),
  'a run of `(@`': fill('', '@('),
  'Safari `bundle` after a long name': fill('', 'x', 'bundle'),
  'a run of `http`': fill('', 'http'),
  'a run of `\\tat `': fill('', '\tat '),
  'many short V8 frames': fill('', `    at f (${URL}:1:1)\n`),
  'many short Firefox frames': fill('', `f@${URL}:1:1\n`),
  'many lines of `@`': fill('', '@\n'),
  'many lines of `at `': fill('', 'at \n'),
}

describe('stacks within the limits block the event loop briefly', () => {
  // Compiled once before timing: the first call of each function is not the input's cost.
  groupEvent({ type: 'ERROR', message: 'TypeError: x', stack: `TypeError: x\n    at f (${URL}:1:1)`, url: null, method: null, statusCode: null, fingerprint: null })

  for (const [name, stack] of Object.entries(WORST)) {
    it(`${name}: under ${BUDGET_MS} ms through parseStack and through grouping`, () => {
      assert.equal(stack.length, TEXT_LIMITS.stack)
      const parsing = timed(() => parseStack(stack)).ms
      // Another text (not the cached one), and the stack's first line as the message (cut to its limit): the whole path.
      const message = stack.slice(0, TEXT_LIMITS.message)
      const grouping = timed(() => groupEvent({ type: 'ERROR', message, stack: `${stack.slice(1)} `, url: null, method: null, statusCode: null, fingerprint: null })).ms
      assert.ok(parsing < BUDGET_MS, `parseStack took ${parsing.toFixed(1)} ms`)
      assert.ok(grouping < BUDGET_MS, `grouping took ${grouping.toFixed(1)} ms`)
    })
  }
})
