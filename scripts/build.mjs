// Bundles the service into dist/sessionwatch.mjs, so production runs plain JavaScript: no
// TypeScript loader thread, less memory, faster start. npm packages stay external (node_modules).
// Skips the work when dist is newer than every source file; `--force` rebuilds anyway; `--outdir DIR`
// builds into another folder (inside the repository, where the bundle finds node_modules).
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
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

export async function buildService({ force = false, outDir = path.dirname(OUTFILE) } = {}) {
  const outfile = path.join(outDir, path.basename(OUTFILE))
  const built = fs.existsSync(outfile) ? fs.statSync(outfile).mtimeMs : 0
  // The service bundles common/ too, and dist/sdk.* come from browser/.
  const sources = Math.max(...['src', 'common', 'browser'].map((dir) => newestSource(path.join(root, dir))),
    fs.statSync(path.join(root, 'package.json')).mtimeMs)
  if (!force && built > sources) return false
  const result = await build({
    entryPoints: [path.join(root, 'src', 'cli.ts')],
    outfile,
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
  fs.mkdirSync(outDir, { recursive: true })
  for (const file of result.outputFiles) {
    const tmp = `${file.path}.${process.pid}.tmp`
    fs.writeFileSync(tmp, file.contents)
    fs.renameSync(tmp, file.path)
  }
  // The browser SDK as files too (package export `sessionwatch/sdk`), written by the very code that serves
  // /sdk.js and /sdk.mjs, so the files and what the service serves cannot differ.
  const { writeSdkFiles } = await import(pathToFileURL(outfile).href)
  await writeSdkFiles(outDir, root)
  return true
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--outdir')
  const outDir = at === -1 ? undefined : path.resolve(process.argv[at + 1] ?? '')
  const rebuilt = await buildService({ force: process.argv.includes('--force'), outDir })
  console.log(rebuilt ? `built ${path.relative(process.cwd(), outDir ?? OUTFILE)}` : 'dist is up to date')
}
