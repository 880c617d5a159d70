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
}

/** The repository root, found from this file whether it runs from src/ or from the dist bundle. */
function root(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!fs.existsSync(path.join(dir, 'sdk', 'src', 'index.ts'))) {
    const up = path.dirname(dir)
    if (up === dir) throw new Error('cannot find sdk/src/index.ts')
    dir = up
  }
  return dir
}

let cached: Promise<SdkBundle> | null = null

/** Builds the browser SDK with esbuild once per process (~50 ms), so /sdk.js always matches its source. */
export function sdkBundle(): Promise<SdkBundle> {
  cached ??= (async () => {
    const entry = path.join(root(), 'sdk', 'src', 'index.ts')
    const common = { entryPoints: [entry], bundle: true, minify: true, write: false as const, target: 'es2020', legalComments: 'none' } satisfies BuildOptions
    const [iife, esm] = await Promise.all([
      build({ ...common, format: 'iife', globalName: 'Sessionwatch' }),
      build({ ...common, format: 'esm' }),
    ])
    const script = iife.outputFiles[0]?.text ?? ''
    return { script, module: esm.outputFiles[0]?.text ?? '', hash: createHash('sha256').update(script).digest('hex').slice(0, 12) }
  })()
  return cached
}
