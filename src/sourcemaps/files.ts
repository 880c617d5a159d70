import fs from 'node:fs/promises'
import path from 'node:path'
import { AppError } from '../errors.ts'
import { bundleDebugId } from './map.ts'
import type { MapUpload } from './service.ts'

/** Files whose `//# sourceMappingURL=` pairs them with a map: the scripts a bundler writes. */
const SCRIPT = /\.(?:js|mjs|cjs)$/

/**
 * The source maps of a build directory, as uploads (`sessionwatch sourcemaps upload`). Each `*.map`
 * under `dir` is paired with its minified file: the script whose last lines say
 * `//# sourceMappingURL=<the map>`, else the map's own path without `.map`. Its URL is `urlPrefix` +
 * the minified file's path relative to `dir` (POSIX separators); its debug ID, when the script carries
 * a `//# debugId=` line.
 *
 * @example
 * await mapsInDirectory('dist', 'https://shop.example/', null)
 * // [{ url: 'https://shop.example/static/app-3f2a.js', file: 'static/app-3f2a.js.map', data: <Buffer …>, debugId: null, release: null }]
 */
export async function mapsInDirectory(dir: string, urlPrefix: string, release: string | null): Promise<MapUpload[]> {
  let entries: string[]
  try {
    entries = (await fs.readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
      .sort()
  } catch (error) {
    throw new AppError(400, 'invalid_parameter', `Cannot read the directory ${dir}: ${(error as Error).message}`, 'dir')
  }
  const scripts = new Map<string, { script: string; debugId: string | null }>()
  for (const script of entries.filter((e) => SCRIPT.test(e))) {
    const text = await fs.readFile(path.join(dir, script), 'utf8')
    const target = mapReference(text)
    const mapPath = target === null ? null : resolveReference(script, target)
    if (mapPath !== null && !scripts.has(mapPath)) scripts.set(mapPath, { script, debugId: bundleDebugId(text) })
  }
  const prefix = urlPrefix.endsWith('/') ? urlPrefix : `${urlPrefix}/`
  const uploads: MapUpload[] = []
  for (const file of entries.filter((e) => e.endsWith('.map'))) {
    const paired = scripts.get(file)
    const script = paired?.script ?? file.slice(0, -'.map'.length)
    const debugId = paired ? paired.debugId : await debugIdOfFile(path.join(dir, script))
    uploads.push({ url: prefix + script, file, data: await fs.readFile(path.join(dir, file)), release, debugId })
  }
  return uploads
}

/** The map a script names in its last lines (`//# sourceMappingURL=…`, or the older `//@`); inline `data:` maps name none. */
function mapReference(text: string): string | null {
  const tail = text.slice(Math.max(0, text.length - 4096)).split('\n').slice(-5)
  for (const line of tail.reverse()) {
    const match = /^\s*\/\/[#@]\s*sourceMappingURL=(\S+)\s*$/.exec(line)
    if (match?.[1] !== undefined) return match[1].startsWith('data:') ? null : match[1]
  }
  return null
}

/** A sourceMappingURL as a path relative to the build directory: relative to the script, or an absolute URL's last segment beside it. */
function resolveReference(script: string, reference: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(reference) || reference.startsWith('/')
  let target = reference
  if (absolute) target = reference.replace(/[?#].*$/s, '').split('/').pop() ?? reference
  try {
    target = decodeURIComponent(target)
  } catch {
    // Not percent-encoded after all: the name as written.
  }
  return path.posix.normalize(path.posix.join(path.posix.dirname(script), target))
}

async function debugIdOfFile(file: string): Promise<string | null> {
  try {
    return bundleDebugId(await fs.readFile(file, 'utf8'))
  } catch {
    return null // no minified file beside the map: its URL is still the map's name without .map
  }
}
