/**
 * Which test files `npm test` runs, in what order and pieces, and what they need (a browser, PostgreSQL). Kept apart
 * from scripts/test.ts, which runs the tests as soon as it is imported, so that this can be unit-tested.
 */
import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import type { Engine } from '../src/config.ts'
import type { TestJob } from './lib/test-jobs.ts'

/** The test files under `<root>/test` whose path contains one of `filters` (all of them when none), relative to root and sorted. */
export function selectTestFiles(root: string, filters: readonly string[]): string[] {
  return fs.readdirSync(path.join(root, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join('test', f))
    .filter((f) => filters.length === 0 || filters.some((flt) => f.includes(flt)))
    .sort()
}

/** What a file imports: static, `export … from` and dynamic `import()` specifiers, as TypeScript parses them (never text in strings or comments). */
const importsOf = (source: string): string[] =>
  ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName)

const readSource = (file: string): string => {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return '' // an import of a file that is not there fails in the test itself, with a clearer message
  }
}

/**
 * Whether a test file imports something `wanted` accepts (given the import as written and as a path): itself, or
 * through a relative import inside `testDir` (a helper of test/helpers, say). Decided by what the file uses rather
 * than where it lives.
 */
export function importsReach(
  file: string, testDir: string, wanted: (spec: string, target: string) => boolean, read: (file: string) => string = readSource,
  seen = new Set<string>(),
): boolean {
  if (seen.has(file)) return false
  seen.add(file)
  for (const spec of importsOf(read(file))) {
    const target = path.resolve(path.dirname(file), spec)
    if (wanted(spec, target)) return true
    if (spec.startsWith('.') && target.startsWith(testDir + path.sep) && importsReach(target, testDir, wanted, read, seen)) return true
  }
  return false
}

/**
 * Whether a test file drives a browser: it imports playwright-core, itself or through a test helper, so a browser
 * test in any folder gets Chromium, and a plain unit test beside browser tests does not ask for it.
 *
 * @example
 * needsChromium('/repo/test/browser/dashboard/e2e.test.ts', '/repo/test') // true: it imports ../helpers/browser.ts
 */
export const needsChromium = (file: string, testDir: string, read: (file: string) => string = readSource): boolean =>
  importsReach(file, testDir, (spec) => spec === 'playwright-core' || spec.startsWith('playwright-core/'), read)

/** Whether a test file reaches a PostgreSQL server: it imports the helper that starts one (scripts/lib/postgres-server.ts). */
export const needsPostgres = (file: string, testDir: string, read: (file: string) => string = readSource): boolean =>
  importsReach(file, testDir, (_spec, target) => target === path.join(path.dirname(testDir), 'scripts', 'lib', 'postgres-server.ts'), read)

/** Whether a test file holds code to a time budget, which other tests running at once would eat into: it imports test/helpers/budget.ts. */
export const timesItself = (file: string, testDir: string, read: (file: string) => string = readSource): boolean =>
  importsReach(file, testDir, (_spec, target) => target === path.join(testDir, 'helpers', 'budget.ts'), read)

/** Whether a test file runs its tests once per engine: it imports test/helpers/engines.ts. */
export const runsPerEngine = (file: string, testDir: string, read: (file: string) => string = readSource): boolean =>
  importsReach(file, testDir, (_spec, target) => target === path.join(testDir, 'helpers', 'engines.ts'), read)

/** Rough seconds a file of each tier takes per 10 kB of source, for a file never timed here. */
const SECONDS_PER_10KB: Record<string, number> = { 'multi-process': 30, browser: 15, cli: 7, http: 6, store: 3, unit: 0.4 }
/**
 * A file that runs per engine and takes longer than this is run once per engine, each run a job of its own, so that
 * one long file does not end the run alone. Not shorter ones: a file's tests outside its loop over the engines (a
 * comparison of both, say) would run twice, or not at all.
 */
export const SPLIT_SECONDS = 30

/**
 * The jobs to run, in the order to start them: longest first, so that no long one starts last and runs on alone. A
 * file's length is how long it took last time (`took`, seconds), or a guess from its tier and size; a long file that
 * `perEngine` says runs per engine becomes one job per engine.
 */
export function plan(
  files: readonly string[], engines: readonly Engine[], took: Readonly<Record<string, number>>, size: (file: string) => number,
  perEngine: (file: string) => boolean,
): TestJob[] {
  const guess = (file: string) => took[file] ?? (SECONDS_PER_10KB[file.split(path.sep)[1] ?? ''] ?? 4) * size(file) / 10_000
  return files.flatMap((file) => {
    const seconds = guess(file)
    if (engines.length < 2 || seconds < SPLIT_SECONDS || !perEngine(file)) return [{ job: { file }, seconds }]
    return engines.map((engine) => ({ job: { file, engine }, seconds: seconds / engines.length }))
  }).sort((a, b) => b.seconds - a.seconds).map((j) => j.job)
}
