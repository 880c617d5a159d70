import assert from 'node:assert/strict'
import fs from 'node:fs'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { patchRrweb } from '../../../src/assets/rrweb-patch.ts'

/** The installed @rrweb/record's ES module build, which the recorder bundles. */
const RECORD_JS = fileURLToPath(import.meta.resolve('@rrweb/record'))

describe('the rrweb untainted-prototype fix', () => {
  it('applies to the installed @rrweb/record: querySelector and querySelectorAll are checked as methods, not accessors', () => {
    const patched = patchRrweb(fs.readFileSync(RECORD_JS, 'utf8'))
    assert.match(patched, /testableAccessors = \{[^}]*Element: \["shadowRoot"\],/)
    assert.match(patched, /testableMethods = \{[^}]*Element: \["querySelector", "querySelectorAll"\],/)
  })

  it('fails the build, naming itself, when rrweb no longer has the text it fixes', () => {
    assert.throws(() => patchRrweb('const testableAccessors = {};'), /rrweb untainted-prototype fix no longer applies.*rrweb-patch\.ts/)
  })
})
