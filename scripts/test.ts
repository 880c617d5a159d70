/**
 * `npm test`: every test file under test/, with node's test runner, on every engine; `npm run test:<tier>` is the
 * same on one folder. Arguments narrow the run to files whose path contains one of them.
 *
 * The files run in SW_TEST_WORKERS worker processes at once (default: one per core), longest first, each worker
 * running file after file (scripts/lib/test-pool.ts); a long file that loops over the engines runs as one job per
 * engine (scripts/test-files.ts' plan); the files that time themselves run last, alone. When PostgreSQL is among the engines (SW_TEST_ENGINES, default
 * all), a selected file needs it and no server is given (SW_TEST_PG_URL, or a postgres:// DATABASE_URL), one
 * throw-away server is started for the whole run and stopped afterwards.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { testEngines } from '../test/helpers/engines.ts'
import { startTestPostgres, type TestPostgres } from './lib/postgres-server.ts'
import type { JobResult, TestJob } from './lib/test-jobs.ts'
import { runInWorkers } from './lib/test-pool.ts'
import { needsChromium, needsPostgres, plan, runsPerEngine, selectTestFiles, timesItself } from './test-files.ts'

const root = path.resolve(import.meta.dirname, '..')
const testDir = path.join(root, 'test')
const filters = process.argv.slice(2)
const files = selectTestFiles(root, filters)
if (files.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`)
  process.exit(1)
}

/*
 * The browser tests (any file importing playwright-core, directly or through a test helper) drive
 * Debian's Chromium. On a fresh machine the script installs it (apt-get, as root); without root it
 * says what to run instead of failing obscurely.
 */
const CHROMIUM = '/usr/bin/chromium'
if (files.some((f) => needsChromium(path.join(root, f), testDir)) && !fs.existsSync(CHROMIUM)) {
  if (process.getuid?.() !== 0) {
    console.error(`the browser tests need Chromium: run \`sudo apt-get install -y chromium\` (Debian), then npm test again`)
    process.exit(1)
  }
  console.log('installing Chromium for the browser tests (apt-get install chromium)…')
  const apt = (args: string[]) => spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  if (apt(['update', '-qq']).status !== 0 || apt(['install', '-y', '-qq', 'chromium']).status !== 0) {
    console.error('apt-get could not install chromium')
    process.exit(1)
  }
}

const env = { ...process.env }
/** A whole number of milliseconds, or more workers, from the environment, or `fallback` when unset. */
function wholeNumber(name: string, fallback: number, least: number): number {
  const value = env[name] === undefined ? fallback : Number(env[name])
  if (!Number.isInteger(value) || value < least) {
    console.error(`${name} must be a whole number of at least ${least}, not ${String(env[name])}`)
    process.exit(1)
  }
  return value
}
// A job that runs longer than this fails instead of hanging the run, and CI, for ever: the slowest takes about two
// minutes on a busy machine, so twenty are a hang, never a slow job. SW_TEST_TIMEOUT_MS sets another (0: none) for a debugger.
const timeoutMs = wholeNumber('SW_TEST_TIMEOUT_MS', 20 * 60_000, 0)
const engines = testEngines(env)
let server: TestPostgres | null = null
if (engines.includes('postgres') && !env.SW_TEST_PG_URL && files.some((f) => needsPostgres(path.join(root, f), testDir))) {
  if (env.DATABASE_URL?.startsWith('postgres')) {
    env.SW_TEST_PG_URL = env.DATABASE_URL
  } else {
    const started = Date.now()
    server = await startTestPostgres()
    env.SW_TEST_PG_URL = server.url
    console.log(`started a test PostgreSQL server in ${Date.now() - started} ms`)
  }
}
// The app under test reads DATABASE_URL only through the config each test builds.
delete env.DATABASE_URL

/** How long each file took on its last run here (gitignored), to start the longest first next time. */
const TIMES = path.join(root, 'test-artifacts', 'test-times.json')
const readTimes = (): Record<string, number> => {
  try {
    return JSON.parse(fs.readFileSync(TIMES, 'utf8')) as Record<string, number>
  } catch {
    return {}
  }
}
const jobs = plan(files, engines, readTimes(), (f) => fs.statSync(path.join(root, f)).size, (f) => runsPerEngine(path.join(root, f), testDir))
const alone = jobs.filter((j) => timesItself(path.join(root, j.file), testDir))
const together = jobs.filter((j) => !alone.includes(j))
// One worker per core keeps the cores busy: the tests' own waits leave room for the servers and browsers they start.
const workers = Math.max(1, Math.min(together.length, wholeNumber('SW_TEST_WORKERS', os.availableParallelism(), 1)))
console.log(`engines: ${engines.join(', ')}; ${files.length} test files: ${together.length} jobs in ${workers} worker${workers === 1 ? '' : 's'}`
  + `, then ${alone.length} that time themselves, alone`)

const started = Date.now()
const results: (JobResult & { job: TestJob; ms: number })[] = []
const stopServer = async () => { await server?.stop() }
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { void stopServer().finally(() => process.exit(1)) })
}
const options = {
  workers, timeoutMs, cwd: root, env,
  onResult: (result: JobResult & { job: TestJob; ms: number }) => {
    results.push(result)
    process.stdout.write(result.text)
  },
}
const problems = [...await runInWorkers(together, options), ...await runInWorkers(alone, { ...options, workers: 1 })]
await stopServer()

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const sum = (pick: (r: JobResult) => number) => results.reduce((n, r) => n + pick(r), 0)
console.log(`\nℹ jobs ${results.length}, tests ${sum((r) => r.tests)}, failed ${sum((r) => r.failed)}, skipped ${sum((r) => r.skipped)}; ${seconds(Date.now() - started)} in ${workers} worker${workers === 1 ? '' : 's'}`)
console.log('ℹ slowest jobs:')
for (const r of [...results].sort((a, b) => b.ms - a.ms).slice(0, 10)) console.log(`  ${seconds(r.ms).padStart(8)}  ${r.name}`)
// A file's time is that of all its jobs; kept from runs on both engines only, which are what a full run plans from.
const took: Record<string, number> = {}
for (const r of results) took[r.job.file] = (took[r.job.file] ?? 0) + r.ms / 1000
if (engines.length > 1) {
  fs.mkdirSync(path.dirname(TIMES), { recursive: true })
  fs.writeFileSync(TIMES, `${JSON.stringify({ ...readTimes(), ...took }, null, 1)}\n`)
}

const failures = results.filter((r) => !r.ok)
for (const r of failures) console.log(`✖ ${r.name}`)
for (const problem of problems) console.log(`✖ ${problem}`)
process.exit(failures.length > 0 || problems.length > 0 ? 1 : 0)
