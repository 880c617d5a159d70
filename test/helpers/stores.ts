import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe } from 'node:test'
import { gzipSync } from 'node:zlib'
import type { Engine } from '../../src/config.ts'
import type { Db } from '../../src/database.ts'
import { fileStore } from '../../src/recording/store/file.ts'
import { type BlobStore, newBlobKey } from '../../src/recording/store/types.ts'
import type { StoreUrl } from '../../src/recording/store/url.ts'
import { startTestApp, type TestApp } from './app.ts'
import { chosen } from './choose.ts'
import { rrwebEvents } from './recording.ts'
import { startTestS3, type TestS3 } from './s3.ts'

/** The recording stores (RECORDINGS_URL kinds) the recording suites run on; SW_TEST_STORES narrows them (comma-separated). */
export const ALL_STORES: readonly StoreKind[] = ['database', 'file', 's3']
export type StoreKind = StoreUrl['kind']

export function testStores(env: NodeJS.ProcessEnv = process.env): StoreKind[] {
  return chosen('SW_TEST_STORES', ALL_STORES, env)
}

/**
 * Declares `body` once per test store of `kinds`, in blocks named `title` and the store, run at once: each block
 * builds an app of its own, which is most of its time.
 */
export function describeStores(title: string, body: (kind: StoreKind) => void, kinds: readonly StoreKind[] = ALL_STORES): void {
  describe(title, { concurrency: true }, () => {
    // Each block's own tests one after another, as they would run without the blocks beside them.
    for (const kind of testStores().filter((k) => kinds.includes(k))) describe(`${kind} store`, { concurrency: 1 }, () => { body(kind) })
  })
}

/** The stores that keep chunks as objects beside the database. */
export const OBJECT_STORES: readonly StoreKind[] = ['file', 's3']

/** A recording store for one test app: its settings, a client of it, and what it holds. */
export interface TestStore {
  kind: StoreKind
  /** RECORDINGS_URL and the S3 settings, for startTestApp. */
  env: Record<string, string>
  /** The store itself, to look at or tamper with; null for `database:`. */
  store: BlobStore | null
  /** The S3 server behind an `s3` store, to stop and start. */
  s3: TestS3 | null
  /** Objects (any file, for a folder: a `.partial` too) the store holds; always 0 for `database:`. */
  countObjects(): Promise<number>
  close(): Promise<void>
}

export async function openTestStore(kind: StoreKind): Promise<TestStore> {
  if (kind === 'database') {
    return { kind, env: { RECORDINGS_URL: 'database:' }, store: null, s3: null, countObjects: () => Promise.resolve(0), close: () => Promise.resolve() }
  }
  if (kind === 's3') {
    const s3 = await startTestS3()
    return { kind, env: s3.env, store: s3.store, s3, countObjects: () => s3.countObjects(), close: () => s3.close() }
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-recordings-'))
  return {
    kind, env: { RECORDINGS_URL: `file:${root}` }, store: fileStore(root), s3: null,
    countObjects: () => Promise.resolve(fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length),
    close: () => { fs.rmSync(root, { recursive: true, force: true }); return Promise.resolve() },
  }
}

/** A test app (startTestApp) that keeps its recordings in a store of its own, closed with it. */
export interface StoreApp extends TestApp { store: TestStore }

export async function startStoreApp(engine: Engine, kind: StoreKind, env: Record<string, string> = {}): Promise<StoreApp> {
  const store = await openTestStore(kind)
  const t = await startTestApp(engine, { ...env, ...store.env }).catch(async (error: unknown) => {
    await store.close()
    throw error
  })
  return { ...t, store, close: async () => { await t.close(); await store.close() } }
}

/** Where a session's chunk rows keep their data: inline, or which object of which store. */
export function chunkRows(db: Db, sessionId: string): Promise<{ id: string; data: Buffer | null; store_id: number | null; blob: string | null }[]> {
  return db.selectFrom('recording_chunks').select(['id', 'data', 'store_id', 'blob']).where('session_id', '=', sessionId).orderBy('id').execute()
}

/**
 * Checks that a session's stored chunks keep their data where the store says: inline with `database:`, otherwise
 * only metadata in the row (a key of at most 200 bytes) and an object in the store.
 */
export async function assertChunksIn(db: Db, store: TestStore, sessionId: string): Promise<void> {
  const rows = (await chunkRows(db, sessionId)).filter((r) => r.data !== null || r.blob !== null)
  assert.ok(rows.length > 0, `session ${sessionId} has stored chunks`)
  for (const row of rows) {
    if (store.store === null) {
      assert.deepEqual([row.data !== null, row.store_id, row.blob], [true, null, null], `chunk ${row.id} is inline`)
      continue
    }
    assert.equal(row.data, null, `chunk ${row.id}: no data in the row`)
    assert.ok(row.store_id !== null && row.blob !== null && Buffer.byteLength(row.blob) <= 200, `chunk ${row.id}: a short key (${String(row.blob)})`)
    const object = await store.store.get(row.blob)
    assert.ok(object !== null, `chunk ${row.id}: its object ${row.blob} is in the store`)
    object.destroy()
  }
}

/** An object with no chunk row, as a crash between the write and the commit leaves: its key. */
export async function putOrphan(store: BlobStore, projectId: string): Promise<string> {
  const key = newBlobKey(projectId)
  await store.put(key, gzipSync(JSON.stringify(rrwebEvents(Date.now()))))
  return key
}

/** Deletes a stored chunk's object by hand, leaving its row naming an object that is gone: the row's key. */
export async function loseObject(db: Db, store: BlobStore, sessionId: string, chunkId: string): Promise<string> {
  const row = (await chunkRows(db, sessionId)).find((r) => r.id === chunkId)
  if (row?.blob == null) throw new Error(`chunk ${chunkId} of ${sessionId} has no object`)
  await store.delete([row.blob])
  return row.blob
}
