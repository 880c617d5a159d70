/**
 * `npm test`: runs every test file under test/ with node's test runner.
 * Arguments narrow the run to files whose path contains one of them (npm test -- ingest).
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const filters = process.argv.slice(2)
const files = fs.readdirSync(path.join(root, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => path.join('test', f))
  .filter((f) => filters.length === 0 || filters.some((flt) => f.includes(flt)))
  .sort()

if (files.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`)
  process.exit(1)
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  cwd: root, stdio: 'inherit', env: process.env,
})
process.exit(result.status ?? 1)
