import { randomBytes } from 'node:crypto'
import type { Readable } from 'node:stream'
import { AppError } from '../../errors.ts'

/** An object of a store, as listing it tells: its key (relative to the store's root), size and last change. */
export interface StoredObject { key: string; bytes: number; modifiedAt: number }

/**
 * Where recording chunks' bytes live when they are not in the database: a folder (file.ts) or an S3 bucket (s3.ts).
 * Keys are made by `newBlobKey`; a store never interprets them beyond using them as names.
 */
export interface BlobStore {
  /** The normalized RECORDINGS_URL (`file:/abs/path`, `s3://bucket/prefix`), as `recording_stores` keeps it. */
  readonly url: string
  /** Writes an object durably: once this resolves, a crash does not lose it. */
  put(key: string, data: Buffer): Promise<void>
  /** The object's bytes as a stream, or null when there is no such object. */
  get(key: string): Promise<Readable | null>
  /** Deletes objects; one already gone is no error. */
  delete(keys: readonly string[]): Promise<void>
  /** Every object of the store, in no particular order. */
  list(): AsyncIterable<StoredObject>
  /** Its filesystem's free and total bytes, for a folder; null for a store without a disk of its own. */
  disk(): Promise<{ free: number; total: number } | null>
  close(): Promise<void>
}

/**
 * A store that cannot be reached (S3 down, a folder's disk gone): an outage, answered 503 with Retry-After like a
 * database outage, and retried by the SDKs. `url` names the store without credentials.
 */
export class StoreUnavailable extends AppError {
  constructor(url: string, readonly reason: unknown) {
    super(503, 'service_unavailable', `The recording store ${url} is unreachable right now; retry in a few seconds.`)
    this.name = 'StoreUnavailable'
  }
}

/** A store whose disk is full: the chunk is dropped (`store_full`), never the events of its request. */
export class StoreFull extends Error {
  constructor(url: string) {
    super(`The recording store ${url} is out of space`)
    this.name = 'StoreFull'
  }
}

/**
 * A fresh key for a chunk of a project: `<project>/<2 hex>/<random>.gz`. Random rather than derived from the
 * chunk's id, so a visit's id reused after retention, or a retried chunk racing a delete, never names an object
 * another row points at; the two hex digits spread a busy project's objects over 256 folders.
 */
export function newBlobKey(projectId: string): string {
  const random = randomBytes(15).toString('base64url')
  return `${projectId}/${randomBytes(1).toString('hex')}/${random}.gz`
}
