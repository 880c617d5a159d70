import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, it } from 'node:test'
import type { Row } from '../../../bench/lib/report.ts'
import { DOC, END, expectedDoc, RESULTS, renderTable, START, withTable, type Results } from '../../../scripts/bench-table.ts'

const script = path.resolve(import.meta.dirname, '..', '..', '..', 'scripts', 'bench-table.ts')
const row = (engine: string, scenario: string, fields: Partial<Row>): Row =>
  ({ engine, scenario, bytes: 0, requests: 1, rps: 0, p50: 0, p99: 0, non2xx: 0, errors: 0, seconds: 1, ...fields })
const tiny: Results = {
  quick: false, seconds: 10, connections: 50, node: 'v20.0.0', cpus: 2, memoryGiB: 8, dataset: { sessions: 1000, days: 3 },
  rows: [
    row('sqlite', 'list: first page, exact total', { rps: 1500, p99: 40, ceiling: 10_000, ratio: 0.15 }),
    row('sqlite', 'search: q=', { rps: 80, p50: 12 }),
    row('postgres', 'list: first page, exact total', { rps: 900, p99: 4, ceiling: 3000, ratio: 0.3 }),
    row('postgres', 'search: q=', { rps: 30, p50: 30 }),
  ],
}

describe('npm run bench:table', () => {
  it('docs/performance.md carries the table bench/results.json gives (npm run bench:table writes it)', () => {
    const { doc, expected } = expectedDoc(DOC, RESULTS)
    assert.equal(doc, expected)
  })

  it('renders a scenario a row, both engines side by side, with its targets and how each engine stands', () => {
    assert.deepEqual(renderTable(tiny).split('\n').slice(2), [
      '| scenario | SQLite | PostgreSQL | target | status |',
      '|---|---|---|---|---|',
      '| list: first page, exact total | 1,500 req/s, 0.15× ceiling, p99 40 ms | 900 req/s, 0.3× ceiling, p99 4 ms '
        + '| ≥ 0.25× ceiling, p99 ≤ 5 ms | SQLite not met, PostgreSQL met; 0.6× SQLite |',
      '| search: q= | p50 12 ms | p50 30 ms | p50 ≤ 20 ms | SQLite met, PostgreSQL not met; 0.38× SQLite |',
    ])
    assert.match(renderTable({ ...tiny, quick: true }), /\| not judged \(quick run\) \|$/m)
  })

  it('replaces only the block between the markers, and refuses a doc without them', () => {
    const doc = `# Doc\n\n${START}\nold table\n${END}\n\nafter\n`
    assert.equal(withTable(doc, 'new'), `# Doc\n\n${START}\nnew\n${END}\n\nafter\n`)
    assert.throws(() => withTable('# Doc\n', 'new'), /needs <!-- bench:table:start -->/)
    assert.throws(() => withTable(`${END}\n${START}\n`, 'new'), /needs/)
  })

  it('--check exits 1 on a drifted table and writes nothing; without it the table is written', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-bench-table-'))
    try {
      const [doc, results] = [path.join(dir, 'doc.md'), path.join(dir, 'results.json')]
      fs.writeFileSync(doc, `# Doc\n${START}\nstale\n${END}\n`)
      fs.writeFileSync(results, JSON.stringify(tiny))
      const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', script, '--doc', doc, '--results', results, ...args], { encoding: 'utf8' })
      const check = run('--check')
      assert.equal(check.status, 1, check.stderr)
      assert.match(check.stderr, /run npm run bench:table/)
      assert.match(fs.readFileSync(doc, 'utf8'), /stale/)
      assert.equal(run().status, 0)
      assert.equal(run('--check').status, 0)
      assert.equal(fs.readFileSync(doc, 'utf8'), withTable(`# Doc\n${START}\n${END}\n`, renderTable(tiny)))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
