import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, stop, type BuildOptions, type OutputFile } from 'esbuild'
import { rrwebPatch } from './rrweb-patch.ts'

export interface SdkBundle {
  /** `<script src>` build: defines window.Sessionwatch. */
  script: string
  /** ES module build for other bundlers. */
  module: string
  /** Content hash: names the immutable, long-cached copy. */
  hash: string
  /** The screen recorder (rrweb), loaded by the SDK after the page: defines window.SessionwatchRecorder. */
  recorder: string
  recorderHash: string
  /** The Core Web Vitals chunk (web-vitals), loaded by the SDK at start: defines window.SessionwatchVitals. */
  vitals: string
  vitalsHash: string
}

/** The entry point of each browser bundle, from the repository root. */
export const ENTRIES = {
  sdk: ['browser', 'sdk', 'index.ts'],
  recorder: ['browser', 'sdk', 'recorder.ts'],
  vitals: ['browser', 'sdk', 'vitals.ts'],
  dashboard: ['browser', 'dashboard', 'main.ts'],
} as const

/** The repository root, found from this file whether it runs from src/ or from the dist bundle. */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!fs.existsSync(path.join(dir, ...ENTRIES.sdk))) {
    const up = path.dirname(dir)
    if (up === dir) throw new Error('cannot find browser/sdk/index.ts')
    dir = up
  }
  return dir
}

/** esbuild options of every browser bundle the service serves. */
const BROWSER = { bundle: true, minify: true, write: false as const, target: 'es2020', legalComments: 'none' } satisfies BuildOptions

let building = 0

/**
 * Builds one browser bundle (`options` with BROWSER's) and gives its output files. esbuild keeps its helper
 * process running after a build, for the next one: 28–31 MB resident for the life of the service, which builds
 * only at start (the SDK and recorder) and on the dashboard's first request. So the helper is stopped once no build is
 * left in flight; a later build starts a new one (~30 ms). `stop()` ends every esbuild call of the process, and one in
 * flight would never settle: the service makes none but these (scripts/build.mjs bundles it before it starts).
 */
export async function buildBrowser(options: Omit<BuildOptions, keyof typeof BROWSER>): Promise<OutputFile[]> {
  building++
  try {
    return (await build({ ...options, ...BROWSER })).outputFiles
  } finally {
    if (--building === 0) await stop()
  }
}

export const contentHash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 12)

/**
 * Builds the browser SDK and its chunks, the recorder and the vitals. The one build of them: the service serves its output, and
 * `npm run build` writes dist/sdk.js and dist/sdk.mjs from it, so those are byte for byte what /sdk.js and
 * /sdk.mjs serve (test/assets/build.test.ts holds them to it).
 */
export async function buildSdk(root = repoRoot()): Promise<SdkBundle> {
  const entry = (name: keyof typeof ENTRIES) => [path.join(root, ...ENTRIES[name])]
  const [iife, esm, rec, vit] = await Promise.all([
    buildBrowser({ entryPoints: entry('sdk'), format: 'iife', globalName: 'Sessionwatch' }),
    buildBrowser({ entryPoints: entry('sdk'), format: 'esm' }),
    buildBrowser({ entryPoints: entry('recorder'), format: 'iife', globalName: 'SessionwatchRecorder', plugins: [rrwebPatch] }),
    buildBrowser({ entryPoints: entry('vitals'), format: 'iife', globalName: 'SessionwatchVitals' }),
  ])
  const script = iife[0]?.text ?? ''
  const recorder = rec[0]?.text ?? ''
  const vitals = vit[0]?.text ?? ''
  return {
    script, module: esm[0]?.text ?? '', hash: contentHash(script), recorder, recorderHash: contentHash(recorder), vitals, vitalsHash: contentHash(vitals),
  }
}

let cached: Promise<SdkBundle> | null = null

/** The SDK and its chunks, built once per process (~150 ms), so they always match their source. */
export function sdkBundle(): Promise<SdkBundle> {
  cached ??= buildSdk()
  return cached
}

/**
 * Writes the SDK as files into `outDir` (dist/ for `npm run build`; package export `sessionwatch/sdk`), each
 * through a private file renamed into place: several processes may build at once, and none may read half a file.
 */
export async function writeSdkFiles(outDir: string, root = repoRoot()): Promise<void> {
  const sdk = await buildSdk(root)
  fs.mkdirSync(outDir, { recursive: true })
  for (const [name, text] of [['sdk.js', sdk.script], ['sdk.mjs', sdk.module]] as const) {
    const file = path.join(outDir, name)
    fs.writeFileSync(`${file}.${process.pid}.tmp`, text)
    fs.renameSync(`${file}.${process.pid}.tmp`, file)
  }
}
