/**
 * `npm test`: every test file under test/, with node's test runner, on every engine.
 *
 * When PostgreSQL is among the engines (SW_TEST_ENGINES, default all) and no server is given
 * (SW_TEST_PG_URL, or a postgres:// DATABASE_URL), it starts a throw-away one for the run and
 * stops it afterwards. Arguments narrow the run to files whose path contains one of them.
 */
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { testEngines } from '../test/helpers/engines.ts'
import { startTestPostgres, type TestPostgres } from './lib/postgres-server.ts'
import { needsChromium, selectTestFiles } from './test-files.ts'

const root = path.resolve(import.meta.dirname, '..')
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
const testDir = path.join(root, 'test')
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
/*
 * A test file that runs longer than this fails (node's --test-timeout, which bounds each file's whole run) instead of
 * hanging the run, and CI, for ever. The slowest file, the CLI's on both engines, takes ~80 s of a ~12-minute run on
 * this project's 2-core machine: twenty minutes is a hang, never a slow file. SW_TEST_TIMEOUT_MS sets another (0: none)
 * for a slower machine or a debugger.
 */
const TEST_TIMEOUT_MS = 20 * 60_000
const timeout = env.SW_TEST_TIMEOUT_MS === undefined ? TEST_TIMEOUT_MS : Number(env.SW_TEST_TIMEOUT_MS)
if (!Number.isInteger(timeout) || timeout < 0) {
  console.error(`SW_TEST_TIMEOUT_MS must be a whole number of milliseconds (0: no timeout), not ${String(env.SW_TEST_TIMEOUT_MS)}`)
  process.exit(1)
}
const timeoutArgs = timeout > 0 ? [`--test-timeout=${timeout}`] : []
const engines = testEngines(env)
let server: TestPostgres | null = null
if (engines.includes('postgres') && !env.SW_TEST_PG_URL) {
  if (env.DATABASE_URL?.startsWith('postgres')) {
    env.SW_TEST_PG_URL = env.DATABASE_URL
  } else {
    const started = Date.now()
    server = await startTestPostgres()
    env.SW_TEST_PG_URL = server.url
    console.log(`started a test PostgreSQL server in ${Date.now() - started} ms`)
  }
}
console.log(`engines: ${engines.join(', ')}; ${files.length} test files`)
// The app under test reads DATABASE_URL only through the config each test builds.
delete env.DATABASE_URL

const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...timeoutArgs, ...files], { cwd: root, stdio: 'inherit', env })
const stopServer = async () => { await server?.stop() }
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { child.kill(signal) })
}
const code = await new Promise<number>((resolve) => child.once('exit', (c) => { resolve(c ?? 1) }))
await stopServer()
process.exit(code)
