/**
 * `sessionwatch storage check` and `storage migrate` (src/cli-storage.ts prints them): what the recording stores
 * hold against what the chunk rows say, and moving every chunk from one store to another while the service runs.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'
import { listProjects } from '../projects/store.ts'
import * as visits from '../visits/index.ts'
import { ORPHAN_MIN_AGE_MS, PUT_CONCURRENCY } from './limits.ts'
import {
  newBlobKey, openStore, readChunk, registeredStores, storeIdOf, type BlobStore, type RecordingStores, type StoredObject, type StoreUrl,
} from './store/index.ts'
import { purgeTrash } from './upkeep.ts'

/** Rows one query of the check or the migration reads. */
const PAGE = 500
/** Least time between two progress lines. */
const PROGRESS_MS = 3000

export interface Orphan { store: string; key: string; bytes: number }
export interface MissingBlob { project: string; session: string; chunk: string; store: string }
export interface CheckReport { orphans: Orphan[]; missing: MissingBlob[]; young: number; fixed: boolean }

export interface CheckOptions {
  /** Delete the orphans and mark the chunks whose object is missing as dropped. */
  fix: boolean
  /** The time objects' ages are measured from. */
  now: number
  progress: (line: string) => void
}

/** Calls `line` at most every PROGRESS_MS: a long run says where it is without flooding the terminal. */
function throttled(progress: (line: string) => void): (line: () => string) => void {
  let last = Date.now()
  return (line) => {
    if (Date.now() - last < PROGRESS_MS) return
    last = Date.now()
    progress(line())
  }
}

/**
 * Compares every registered store (every store a chunk was ever written to; `database:` has no objects) with the
 * chunk rows and the trash: objects nothing names, older than ORPHAN_MIN_AGE_MS, are orphans; rows whose object the
 * store does not have are missing. With `fix`, orphans are deleted and missing chunks marked dropped.
 */
export async function checkStorage(db: Kysely<Database>, stores: RecordingStores, options: CheckOptions): Promise<CheckReport> {
  const report: CheckReport = { orphans: [], missing: [], young: 0, fixed: options.fix }
  for (const { id, url } of await registeredStores(db)) await checkStore(db, { id, url, store: await stores.byId(id) }, options, report)
  return report
}

interface OpenStore { id: number; url: string; store: BlobStore }

/**
 * One store, one project at a time. Keys begin with their project's id and both stores list them grouped that way
 * (S3 in key order, a folder depth first), so the check holds one project's listed objects and chunk rows at a
 * time, not the whole store's; the rows are read by the key's leading column. Were a project's objects listed in two
 * runs, each run is compared on its own: every finding is confirmed against the rows, the trash and the store
 * themselves before it counts, so the order costs time, never a wrong answer.
 */
async function checkStore(db: Kysely<Database>, at: OpenStore, options: CheckOptions, report: CheckReport): Promise<void> {
  const compared = new Set<string>()
  const missing = new Set<string>()
  const tick = throttled(options.progress)
  let project: string | null = null
  let listed = new Map<string, StoredObject>()
  let count = 0
  const compare = async () => {
    if (project === null) return
    compared.add(project)
    await compareProject(db, at, project, listed, options, report, missing)
  }
  for await (const object of at.store.list()) {
    const owner = object.key.split('/')[0] ?? ''
    if (owner !== project) {
      await compare()
      project = owner
      listed = new Map()
    }
    listed.set(object.key, object)
    count++
    tick(() => `checked ${count} objects of ${at.url}…`)
  }
  await compare()
  // Projects none of whose objects the store listed: every chunk row of theirs naming this store is missing.
  listed = new Map()
  for (const p of await listProjects(db)) {
    if (compared.has(p.id)) continue
    project = p.id
    await compare()
  }
}

async function compareProject(
  db: Kysely<Database>, at: OpenStore, projectId: string, listed: ReadonlyMap<string, StoredObject>,
  options: CheckOptions, report: CheckReport, reported: Set<string>,
): Promise<void> {
  const named = new Set<string>()
  const lost: (visits.ChunkKey & { blob: string })[] = []
  for (let after: { session_id: string; id: string } | null = null; ;) {
    const page = await visits.projectChunksIn(db, projectId, at.id, after, PAGE)
    for (const row of page) {
      named.add(row.blob)
      if (!listed.has(row.blob) && !reported.has(row.blob)) lost.push(row)
    }
    if (page.length < PAGE) break
    after = page.at(-1) ?? null
  }
  const unnamed = [...listed.values()].filter((o) => !named.has(o.key))
  const old = unnamed.filter((o) => options.now - o.modifiedAt >= ORPHAN_MIN_AGE_MS)
  report.young += unnamed.length - old.length
  // Read again now: a row or a trash entry may have been written since the listing.
  const stillNamed = await visits.namedBlobs(db, projectId, at.id, old.map((o) => o.key))
  const orphans = old.filter((o) => !stillNamed.has(o.key))
  for (const o of orphans) report.orphans.push({ store: at.url, key: o.key, bytes: o.bytes })
  if (options.fix && orphans.length > 0) await at.store.delete(orphans.map((o) => o.key))
  for (const row of lost) {
    if (await exists(at.store, row.blob)) continue
    if (options.fix && !await visits.dropMissingChunk(db, row, { store_id: at.id, blob: row.blob })) continue
    reported.add(row.blob)
    report.missing.push({ project: row.project_id, session: row.session_id, chunk: row.id, store: at.url })
  }
}

async function exists(store: BlobStore, key: string): Promise<boolean> {
  const stream = await store.get(key)
  stream?.destroy()
  return stream !== null
}

export interface MigrateReport {
  from: string; to: string
  /** Chunks moved and their bytes. */
  moved: number; bytes: number
  /** Chunks deleted while the migration ran (retention, erasure), and chunks whose source object was missing. */
  gone: number; missing: number
  /** Chunks left in the source: written by a running service after the migration read past them. */
  left: number
}

export interface MigrateOptions {
  progress: (line: string) => void
  /** Test seam: awaited after each chunk's copy is written and after its row moved; throwing stops the run there. */
  step?: (stage: 'written' | 'moved', chunk: visits.ChunkKey) => void | Promise<void>
}

/**
 * Moves every chunk of the store new chunks go to (`stores.current`, the database when null) to `to`, a page of rows
 * at a time in key order, PUT_CONCURRENCY chunks at once: each is read, written to `to` under a new key, and its row
 * repointed by moveChunk, which trashes the source object in the same transaction; the source objects are deleted
 * after each group. A run stopped anywhere leaves each row pointing at one whole copy and the other copy an orphan or
 * in the trash: running again finishes the move.
 */
export async function migrateStorage(db: Kysely<Database>, stores: RecordingStores, to: StoreUrl, options: MigrateOptions): Promise<MigrateReport> {
  const source = stores.current
  const from = source === null ? 'database' : source.id
  const report: MigrateReport = { from: source?.store.url ?? 'database:', to: to.url, moved: 0, bytes: 0, gone: 0, missing: 0, left: 0 }
  if (report.from === to.url) throw new Error(`the chunks are already in ${to.url}`)
  const target = openStore(to, stores.config.s3)
  try {
    const targetId = target === null ? null : await storeIdOf(db, target.url)
    const total = await visits.countChunksIn(db, from)
    const tick = throttled(options.progress)
    const moveOne = async (chunk: visits.PlacedChunk): Promise<visits.BlobRef | null> => {
      const place: visits.ChunkPlace = chunk.store_id !== null && chunk.blob !== null ? { store_id: chunk.store_id, blob: chunk.blob } : 'database'
      const where = place === 'database' ? await visits.chunkSource(db, chunk.project_id, chunk.session_id, chunk.id) : { data: null, ...place }
      const data = where === null ? null : await readChunk(stores, where)
      if (data === null) {
        report[where === null ? 'gone' : 'missing']++
        return null
      }
      let copy: visits.BlobRef | { data: Buffer } = { data }
      if (target !== null && targetId !== null) {
        copy = { store_id: targetId, blob: newBlobKey(chunk.project_id) }
        await target.put(copy.blob, data)
        await options.step?.('written', chunk)
      }
      if (!await visits.moveChunk(db, chunk, place, copy, Date.now())) {
        report.gone++
        return null
      }
      await options.step?.('moved', chunk)
      report.moved++
      report.bytes += chunk.bytes
      return place === 'database' ? null : place
    }
    for (let after: visits.ChunkKey | null = null; ;) {
      const page = await visits.chunksIn(db, from, after, PAGE)
      for (let i = 0; i < page.length; i += PUT_CONCURRENCY) {
        // Settled, not all: a failing chunk lets the others of its group finish, so none is left half moved in this run.
        const results = await Promise.allSettled(page.slice(i, i + PUT_CONCURRENCY).map(moveOne))
        const failed = results.find((r) => r.status === 'rejected')
        if (failed) throw failed.reason
        const sources = results.flatMap((r) => (r.status === 'fulfilled' && r.value !== null ? [r.value.blob] : []))
        if (source !== null && sources.length > 0) {
          await source.store.delete(sources)
          await visits.forgetTrashed(db, source.id, sources)
        }
        tick(() => `moved ${report.moved} of ${total.chunks} chunks (${megabytes(report.bytes)} of ${megabytes(total.bytes)})…`)
      }
      if (page.length < PAGE) break
      after = page.at(-1) ?? null
    }
    // Copies written for rows deleted meanwhile, and what a stopped run left in the trash.
    await purgeTrash(db, stores)
    report.left = (await visits.countChunksIn(db, from)).chunks
    return report
  } finally {
    await target?.close()
  }
}

export const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`
