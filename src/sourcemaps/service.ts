import { promisify } from 'node:util'
import { gzip as gzipCb } from 'node:zlib'
import type { Kysely } from 'kysely'
import { MAX_RELEASE_LENGTH } from '../../common/limits.ts'
import type { Database } from '../database.ts'
import { AppError, invalidParameter } from '../errors.ts'
import { newId } from '../util/ids.ts'
import { toIso } from '../util/time.ts'
import { canonicalDebugId, parseMap } from './map.ts'
import { scriptUrl } from './urls.ts'
import type { SourceMapResolver } from './resolve.ts'
import type { StoredSourceMap } from './schema.ts'
import * as store from './store.ts'

const gzip = promisify(gzipCb)

/** One map to store, from an upload request or a file of a directory. */
export interface MapUpload {
  /** The minified file's URL, or `~/path`. */
  url: string
  /** The map's name, for listings and for every message about it. */
  file: string
  /** The map's bytes, uncompressed. */
  data: Buffer
  release?: string | null
  /** A debug ID given with the upload (the query, or the bundle's `//# debugId=` line). */
  debugId?: string | null
}

/** An upload that passed every check, compressed for storage. */
export interface CheckedUpload {
  url: string
  file: string
  release: string | null
  debugId: string | null
  bytes: number
  gzipped: Buffer
}

/**
 * Checks every upload fully — URL, release, debug ID, and the map itself — before anything is stored,
 * so one bad map stores nothing of its batch. All problems are reported at once, each naming its map.
 */
export async function checkUploads(uploads: readonly MapUpload[], checkedOne: (map: CheckedUpload) => void = () => undefined): Promise<CheckedUpload[]> {
  const problems: AppError[] = []
  const checked: CheckedUpload[] = []
  const byUrl = new Map<string, string>()
  for (const upload of uploads) {
    try {
      const one = await checkUpload(upload)
      const other = byUrl.get(one.url)
      if (other !== undefined) throw invalidParameter('url', `${other} and ${upload.file} are both for ${one.url}: upload one map per minified file`)
      byUrl.set(one.url, upload.file)
      checked.push(one)
      checkedOne(one)
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      problems.push(error)
    }
  }
  const [first] = problems
  if (first !== undefined) {
    throw problems.length === 1 ? first : new AppError(400, 'invalid_body', `${problems.length} source maps are not valid; nothing was stored:\n`
      + problems.map((p) => `  ${p.message}`).join('\n'))
  }
  return checked
}

async function checkUpload(upload: MapUpload): Promise<CheckedUpload> {
  const script = scriptUrl(upload.url)
  if (script === null || (script.path === null && !script.url.startsWith('~/'))) {
    throw invalidParameter('url', `${upload.file}: url must be the minified file's absolute URL (https://shop.example/static/app.js) `
      + `or ~/path to match any scheme and host (~/static/app.js) (got ${JSON.stringify(upload.url)})`)
  }
  const release = upload.release ?? null
  if (release !== null && (release.trim() === '' || release.length > MAX_RELEASE_LENGTH)) {
    throw invalidParameter('release', `${upload.file}: release must be 1 to ${MAX_RELEASE_LENGTH} characters`)
  }
  let given: string | null = null
  if (upload.debugId != null) {
    given = canonicalDebugId(upload.debugId)
    if (given === null) throw invalidParameter('debugId', `${upload.file}: debugId must be a UUID such as 85314830-023f-4cf1-a267-535f4e37bb17 (got ${JSON.stringify(upload.debugId)})`)
  }
  const { debugId: own } = parseMap(upload.data, upload.file)
  if (given !== null && own !== null && given !== own) {
    throw invalidParameter('debugId', `${upload.file}: its debug ID is ${own}, but ${given} was given for it (the upload's debugId, `
      + 'or its bundle\'s //# debugId line): is it the map of another build?')
  }
  return { url: script.url, file: upload.file, release, debugId: given ?? own, bytes: upload.data.length, gzipped: await gzip(upload.data) }
}

/**
 * Stores checked maps in one transaction; each replaces the map stored for its URL. The resolver of
 * this process forgets the project's lookups at once (others within SOURCEMAP_LOOKUP_TTL_MS).
 */
export async function storeUploads(
  db: Kysely<Database>, resolver: SourceMapResolver | null, projectId: string, uploads: readonly CheckedUpload[], now = Date.now(),
): Promise<StoredSourceMap[]> {
  const rows = uploads.map((u) => toRow(projectId, u, now))
  await store.replaceSourceMaps(db, rows)
  resolver?.forget(projectId)
  return rows.map(toView)
}

/** One map uploaded on its own (the HTTP endpoint): checked whole, then stored, replacing the map of its URL. */
export async function uploadMap(
  db: Kysely<Database>, resolver: SourceMapResolver | null, projectId: string, upload: MapUpload, now = Date.now(),
): Promise<StoredSourceMap> {
  const row = toRow(projectId, await checkUpload(upload), now)
  await store.replaceSourceMaps(db, [row])
  resolver?.forget(projectId)
  return toView(row)
}

const toRow = (projectId: string, u: CheckedUpload, now: number): store.SourceMapRow => ({
  project_id: projectId, id: newId('sm_', 12), url: u.url, debug_id: u.debugId, release: u.release, file: u.file,
  bytes: u.bytes, data: u.gzipped, created_at: now,
})

export async function listMaps(db: Kysely<Database>, projectId: string): Promise<StoredSourceMap[]> {
  return (await store.listSourceMaps(db, projectId)).map(toView)
}

/** Deletes the project's map for a URL (written as for an upload), or all of them when `url` is null; returns how many went. */
export async function deleteMaps(db: Kysely<Database>, resolver: SourceMapResolver | null, projectId: string, url: string | null): Promise<number> {
  const deleted = await store.deleteSourceMaps(db, projectId, url === null ? null : scriptUrl(url)?.url ?? url)
  resolver?.forget(projectId)
  return deleted
}

const toView = (row: store.SourceMapMeta): StoredSourceMap => ({
  id: row.id, url: row.url, file: row.file, debugId: row.debug_id, release: row.release, bytes: row.bytes, createdAt: toIso(row.created_at),
})
