import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, it } from 'node:test'
import { resultsFile, verdict } from '../../../bench/lib/report.ts'

const root = path.resolve(import.meta.dirname, '..', '..', '..')
const inGit = spawnSync('git', ['rev-parse', '--git-dir'], { cwd: root }).status === 0
const failing = { target: 'ingest ≥ 50,000 events/s', engine: 'sqlite', value: '900', pass: false }

describe('benchmark report', () => {
  it('judges nothing in quick mode, and says so', () => {
    assert.equal(verdict(failing, false), 'not judged in quick mode')
    assert.equal(verdict({ ...failing, pass: true }, false), 'not judged in quick mode')
    assert.equal(verdict(failing, true), 'NOT MET')
    assert.equal(verdict({ ...failing, pass: true }, true), 'met')
  })

  it('writes quick results to a gitignored, untracked file, so CI leaves the clone clean', { skip: !inGit && 'not a git checkout' }, () => {
    const quick = path.relative(root, resultsFile(root, true))
    assert.equal(execFileSync('git', ['ls-files', '--', quick], { cwd: root, encoding: 'utf8' }), '', `${quick} is not tracked`)
    assert.equal(spawnSync('git', ['check-ignore', '-q', '--no-index', quick], { cwd: root }).status, 0, `${quick} is ignored`)
    assert.notEqual(resultsFile(root, false), resultsFile(root, true), 'the full results stay a tracked file of their own')
  })
})
