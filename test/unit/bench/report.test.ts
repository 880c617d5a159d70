import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, it } from 'node:test'
import { comparisonRows, evaluate, figure, resultsFile, verdict, type Row } from '../../../bench/lib/report.ts'
import { compareTrees } from '../../../bench/lib/trees.ts'

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

  it('puts the compared tree beside this checkout, scenario by scenario, with the ratio; a scenario of one tree only stays', () => {
    const row = (scenario: string, rps: number, p50: number): Row => ({ engine: 'sqlite', scenario, bytes: 0, requests: 1, rps, p50, p99: p50, non2xx: 0, errors: 0, seconds: 1 })
    const lines = comparisonRows('main', [row('list', 1000, 40), row('gone', 5, 1)], [row('list', 1500, 30), row('new', 7, 2)])
    assert.deepEqual(lines, [
      { engine: 'sqlite', scenario: 'list', 'main req/s': 1000, 'branch req/s': 1500, 'branch ÷ main': 1.5, 'main p50 ms': 40, 'branch p50 ms': 30 },
      { engine: 'sqlite', scenario: 'new', 'main req/s': '', 'branch req/s': 7, 'branch ÷ main': '', 'main p50 ms': '', 'branch p50 ms': 2 },
      { engine: 'sqlite', scenario: 'gone', 'main req/s': 5, 'branch req/s': '', 'branch ÷ main': '', 'main p50 ms': 1, 'branch p50 ms': '' },
    ])
  })

  it('holds memory figures in MB, and compares no RSS or heap figure of PostgreSQL with SQLite\'s as if it were a speed', () => {
    assert.equal(figure('sqlite', 'idle heap used (MB)', 30 * 1048576).rps, 30)
    const rows = ['sqlite', 'postgres'].flatMap((engine) => [
      figure(engine, 'idle RSS (MB)', 150e6), figure(engine, 'idle heap used (MB)', 30e6), figure(engine, 'idle heap total (MB)', 70e6),
      figure(engine, 'peak RSS (MB)', 300e6), figure(engine, 'peak heap total (MB)', 150e6),
      { ...figure(engine, 'list: first page, exact total', 0), rps: engine === 'sqlite' ? 1000 : 500 },
    ])
    assert.deepEqual(evaluate(rows).filter((c) => c.target.startsWith('PostgreSQL')).map((c) => [c.target, c.value]),
      [['PostgreSQL ≥ 0.7× SQLite: list: first page, exact total', '0.5×']])
  })

  it('compares with no other tree for --against none or a ref git cannot resolve, and says why', { skip: !inGit && 'not a git checkout' }, () => {
    const said: string[] = []
    assert.deepEqual(compareTrees('none', (l) => said.push(l)).map((t) => t.name), ['branch'])
    assert.deepEqual(compareTrees('no-such-ref-anywhere', (l) => said.push(l)).map((t) => [t.name, t.root]), [['branch', root]])
    assert.match(said.join('\n'), /no-such-ref-anywhere: not a commit here/)
  })
})
