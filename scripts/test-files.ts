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
 * Whether a test file drives a browser: it imports playwright-core, itself or through a relative import inside
 * `testDir` (test/helpers/browser.ts, say). Decided by what the file uses rather than where it lives, so a browser
 * test in any folder gets Chromium, and a plain unit test beside browser tests does not ask for it.
 *
 * @example
 * needsChromium('/repo/test/browser/dashboard/e2e.test.ts', '/repo/test') // true: it imports ../helpers/browser.ts
 */
export function needsChromium(
  file: string, testDir: string, read: (file: string) => string = readSource, seen = new Set<string>(),
): boolean {
  if (seen.has(file)) return false
  seen.add(file)
  for (const spec of importsOf(read(file))) {
    if (spec === 'playwright-core' || spec.startsWith('playwright-core/')) return true
    const target = path.resolve(path.dirname(file), spec)
    if (spec.startsWith('.') && target.startsWith(testDir + path.sep) && needsChromium(target, testDir, read, seen)) return true
  }
  return false
}
