/**
 * Which test files `npm test` runs, and whether any of them needs a browser. Kept apart from
 * scripts/test.ts, which runs the tests as soon as it is imported, so that this can be unit-tested.
 */
import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

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

/** Rough seconds a file of each tier takes per 10 kB of source, for a file never timed here. */
const SECONDS_PER_10KB: Record<string, number> = { 'multi-process': 30, browser: 8, http: 4, store: 4, unit: 0.5 }

/**
 * The files in the order to start them: longest first, so that no long file starts last and runs on alone. A file's
 * length is how long it took last time (`took`, seconds), or a guess from its tier and size.
 */
export function longestFirst(files: readonly string[], took: Readonly<Record<string, number>>, size: (file: string) => number): string[] {
  const guess = (file: string) => took[file] ?? (SECONDS_PER_10KB[file.split(path.sep)[1] ?? ''] ?? 4) * size(file) / 10_000
  return files.map((file) => ({ file, seconds: guess(file) })).sort((a, b) => b.seconds - a.seconds).map((f) => f.file)
}
