// Bundles the service into dist/sessionwatch.mjs, so production runs plain JavaScript: no
// TypeScript loader thread, less memory, faster start. npm packages stay external (node_modules).
// Skips the work when dist is newer than every source file; `--force` rebuilds anyway.
import fs from 'node:fs'
import path from 'node:path'
import { build } from 'esbuild'

const root = path.resolve(import.meta.dirname, '..')
export const OUTFILE = path.join(root, 'dist', 'sessionwatch.mjs')

function newestSource(dir) {
  let newest = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs)
  }
  return newest
}

export async function buildService({ force = false } = {}) {
  const built = fs.existsSync(OUTFILE) ? fs.statSync(OUTFILE).mtimeMs : 0
  // The service bundles common/ too, and dist/sdk.* come from browser/.
  const sources = Math.max(...['src', 'common', 'browser'].map((dir) => newestSource(path.join(root, dir))),
    fs.statSync(path.join(root, 'package.json')).mtimeMs)
  if (!force && built > sources) return false
  const result = await build({
    entryPoints: [path.join(root, 'src', 'cli.ts')],
    outfile: OUTFILE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
    write: false,
  })
  // Several processes may start at once: each writes a private file and renames it into place,
  // so none ever imports a half-written bundle.
  fs.mkdirSync(path.dirname(OUTFILE), { recursive: true })
  for (const file of result.outputFiles) {
    const tmp = `${file.path}.${process.pid}.tmp`
    fs.writeFileSync(tmp, file.contents)
    fs.renameSync(tmp, file.path)
  }
  await buildSdkFiles()
  return true
}

/** The browser SDK as files too, for other builds to import (package export `sessionwatch/sdk`). */
async function buildSdkFiles() {
  const common = { entryPoints: [path.join(root, 'browser', 'sdk', 'index.ts')], bundle: true, minify: true, target: 'es2020', logLevel: 'warning' }
  await build({ ...common, format: 'iife', globalName: 'Sessionwatch', outfile: path.join(root, 'dist', 'sdk.js') })
  await build({ ...common, format: 'esm', outfile: path.join(root, 'dist', 'sdk.mjs') })
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rebuilt = await buildService({ force: process.argv.includes('--force') })
  console.log(rebuilt ? `built ${path.relative(process.cwd(), OUTFILE)}` : 'dist is up to date')
}
