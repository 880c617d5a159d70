import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type BuildOptions } from 'esbuild'

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
}

/** The repository root, found from this file whether it runs from src/ or from the dist bundle. */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!fs.existsSync(path.join(dir, 'browser', 'sdk', 'index.ts'))) {
    const up = path.dirname(dir)
    if (up === dir) throw new Error('cannot find browser/sdk/index.ts')
    dir = up
  }
  return dir
}

/** esbuild options of every browser bundle the service serves. */
export const BROWSER = { bundle: true, minify: true, write: false as const, target: 'es2020', legalComments: 'none' } satisfies BuildOptions

export const contentHash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 12)

let cached: Promise<SdkBundle> | null = null

/** Builds the browser SDK and recorder with esbuild once per process (~150 ms), so they always match their source. */
export function sdkBundle(): Promise<SdkBundle> {
  cached ??= (async () => {
    const src = path.join(repoRoot(), 'browser', 'sdk')
    const common = { entryPoints: [path.join(src, 'index.ts')], ...BROWSER } satisfies BuildOptions
    const [iife, esm, rec] = await Promise.all([
      build({ ...common, format: 'iife', globalName: 'Sessionwatch' }),
      build({ ...common, format: 'esm' }),
      build({ ...BROWSER, entryPoints: [path.join(src, 'recorder.ts')], format: 'iife', globalName: 'SessionwatchRecorder' }),
    ])
    const script = iife.outputFiles[0]?.text ?? ''
    const recorder = rec.outputFiles[0]?.text ?? ''
    return { script, module: esm.outputFiles[0]?.text ?? '', hash: contentHash(script), recorder, recorderHash: contentHash(recorder) }
  })()
  return cached
}
