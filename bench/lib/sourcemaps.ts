/**
 * The source-map benchmark's data: a project holding two sessions of 200 ERROR events each, whose
 * stacks point into a real minified bundle (the service itself bundled with its dependencies by esbuild:
 * a map of ~6 MB, the size of a large single-page app's). One session's script has the map uploaded,
 * the other's has none; getSession of each, compared, is the price of mapping at read time.
 */
import { noFacts, writeBatches } from '../../src/visits/index.ts'
import path from 'node:path'
import { decodedMappings } from '@jridgewell/trace-mapping'
import { build } from 'esbuild'
import type { Kysely } from 'kysely'
import type { Database } from '../../src/database.ts'
import type { EventRecord } from '../../src/contract/index.ts'
import { createProject } from '../../src/projects/service.ts'
import { parseMap } from '../../src/sourcemaps/map.ts'
import { checkUploads, storeUploads } from '../../src/sourcemaps/service.ts'
import { ROOT } from './service.ts'
import { groupEvents } from '../../src/issues/index.ts'

export interface MapSessions {
  apiKey: string
  /** Session ids: the same 200 errors, on a script with an uploaded map and on one without. */
  mapped: string
  unmapped: string
  mapBytes: number
}

const MARKER = 'bench_sourcemaps'
const EVENTS = 200
/** Distinct stacks among the 200 errors: a page repeats a few errors, each with its own stack. */
const STACKS = 20
const FRAMES = 8

/** Creates the data once per database (a marker row makes later runs reuse it). */
export async function ensureMapSessions(db: Kysely<Database>, progress: (line: string) => void): Promise<MapSessions> {
  const marker = await db.selectFrom('meta').select('value').where('key', '=', MARKER).executeTakeFirst()
  if (marker) return JSON.parse(marker.value) as MapSessions
  progress('source-map sessions: bundling the service as a site would bundle its app…')
  const result = await build({
    entryPoints: [path.join(ROOT, 'src', 'app.ts')], bundle: true, minify: true, sourcemap: 'external', write: false,
    outfile: path.join(ROOT, 'bench', 'data', 'app.js'), platform: 'node', format: 'esm', logLevel: 'silent',
    // Native addons (better-sqlite3's, Argon2's) are not JavaScript: the bundle is never run, only its map is used.
    loader: { '.node': 'empty' },
  })
  const mapFile = result.outputFiles.find((f) => f.path.endsWith('.map'))
  if (!mapFile) throw new Error('esbuild wrote no map')
  const map = Buffer.from(mapFile.contents)
  const project = await createProject(db, { name: 'Bench maps', domain: 'bench.example', retentionDays: 365 })
  const mappedUrl = 'https://bench.example/static/app.js'
  await storeUploads(db, null, project.id, await checkUploads([{ url: mappedUrl, file: 'app.js.map', data: map }]))
  const stacks = stacksFrom(map)
  const now = Date.now()
  const events = (url: string): EventRecord[] => Array.from({ length: EVENTS }, (_, i) => ({
    id: `e${i}`, type: 'ERROR', createdAt: now - (EVENTS - i) * 1000, url: 'https://bench.example/checkout', method: null,
    message: 'TypeError: Cannot read properties of undefined (reading \'code\')',
    stack: stacks[i % STACKS]?.replaceAll('SCRIPT', url) ?? null, statusCode: null, durationMs: null, reqBody: null, resBody: null, fingerprint: null,
  }))
  const ids = { mapped: 'bench-maps-mapped', unmapped: 'bench-maps-unmapped' }
  const seed = (id: string) => ({ ...noFacts(), id, sessionKey: `${id}-key`, userAgent: 'Mozilla/5.0 (bench maps)' })
  const job = async (id: string, url: string) => {
    const list = events(url)
    return { projectId: project.id, seed: seed(id), events: list, groups: await groupEvents(list), cutoff: 0, now }
  }
  await writeBatches(db, [await job(ids.mapped, mappedUrl), await job(ids.unmapped, 'https://bench.example/static/other.js')])
  const sessions: MapSessions = { apiKey: project.apiKey, ...ids, mapBytes: map.length }
  await db.insertInto('meta').values({ key: MARKER, value: JSON.stringify(sessions) }).execute()
  progress(`source-map sessions ready: 2 × ${EVENTS} errors, map of ${map.length} bytes`)
  return sessions
}

/**
 * V8-style stacks whose frames sit on mapped positions spread through the bundle, as a site's errors run:
 * the top half in the app's own code (which gets source context), the bottom half in library code
 * (node_modules, which does not). SCRIPT stands for the script URL.
 */
function stacksFrom(map: Buffer): string[] {
  const parsed = parseMap(map, 'app.js.map').map
  const positions = { app: [] as [number, number][], vendor: [] as [number, number][] }
  decodedMappings(parsed).forEach((line, l) => {
    for (const [column, source] of line) {
      if (source === undefined) continue
      const vendor = /(?:^|\/)node_modules\//.test(parsed.sources[source] ?? '')
      positions[vendor ? 'vendor' : 'app'].push([l + 1, column + 1])
    }
  })
  const pick = (from: [number, number][], i: number, of: number) => from[Math.floor((i * from.length) / of)] ?? [1, 1]
  const half = FRAMES / 2
  return Array.from({ length: STACKS }, (_, s) => ['TypeError: Cannot read properties of undefined (reading \'code\')',
    ...Array.from({ length: FRAMES }, (_, f) => {
      const [line, column] = f < half ? pick(positions.app, s * half + f, STACKS * half) : pick(positions.vendor, s * half + f - half, STACKS * half)
      return `    at ${String.fromCharCode(97 + f)} (SCRIPT:${line}:${column})`
    })].join('\n'))
}
