import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { ERROR_CODES } from '../../src/errors.ts'

/** The rows of the `| code | status | when |` table in docs/api.md: every backquoted code with its status cell. */
function documentedCodes(markdown: string): Map<string, string> {
  const lines = markdown.slice(markdown.indexOf('| code | status | when |')).split('\n').slice(2)
  const rows = lines.slice(0, lines.findIndex((line) => !line.startsWith('|')))
  const codes = new Map<string, string>()
  for (const row of rows) {
    const [, names = '', status = ''] = row.split('|').map((cell) => cell.trim())
    for (const [, code] of names.matchAll(/`([a-z_]+)`/g)) if (code) codes.set(code, status)
  }
  return codes
}

describe('error codes', () => {
  it('docs/api.md lists exactly the codes of ERROR_CODES, each with its status', () => {
    const documented = documentedCodes(readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8'))
    assert.deepEqual([...documented.keys()].sort(), ERROR_CODES.map((c) => c.code).sort())
    for (const { code, status } of ERROR_CODES) {
      assert.ok(documented.get(code)?.startsWith(String(status)), `${code}: status ${status} in the docs table`)
    }
  })
})
