import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { PUT_CONCURRENCY } from '../limits.ts'
import type { ChunkRecord, ChunkSource } from '../../visits/index.ts'
import type { RecordingStores } from './registry.ts'
import { newBlobKey, StoreFull } from './types.ts'

/**
 * Writes checked chunks' data to the store new chunks go to, before their rows are written: a chunk's row commits only
 * after its data is durable, so the API never lists a chunk it cannot serve (a crash in between leaves an orphan
 * object, which `storage check --fix` removes). Returns the rows to write, pointing at their objects; with `database:`
 * they keep their data inline. A full disk drops the chunk (`store_full`), never the request's events; an unreachable
 * store throws StoreUnavailable (503), and the client sends the request again.
 */
export async function storeChunks(stores: RecordingStores, projectId: string, chunks: readonly ChunkRecord[]): Promise<readonly ChunkRecord[]> {
  const target = stores.current
  // Most batches carry no chunk: they pass through untouched.
  if (target === null || !chunks.some((c) => c.data !== null)) return chunks
  const out: ChunkRecord[] = []
  const written: ChunkRecord[] = []
  try {
    for (let i = 0; i < chunks.length; i += PUT_CONCURRENCY) {
      out.push(...await Promise.all(chunks.slice(i, i + PUT_CONCURRENCY).map(async (chunk): Promise<ChunkRecord> => {
        if (chunk.data === null) return chunk
        const blob = newBlobKey(projectId)
        try {
          await target.store.put(blob, chunk.data)
        } catch (error) {
          if (!(error instanceof StoreFull)) throw error
          return { ...chunk, data: null, dropped: 'store_full' }
        }
        const row = { ...chunk, data: null, store_id: target.id, blob }
        written.push(row)
        return row
      })))
    }
  } catch (error) {
    await discardChunks(stores, written)
    throw error
  }
  return out
}

/**
 * Deletes the objects storeChunks wrote for rows that were then not written (the request failed): best effort, since
 * the client sends the chunks again; what a failure here leaves is an orphan for `storage check --fix`.
 */
export async function discardChunks(stores: RecordingStores, chunks: readonly ChunkRecord[]): Promise<void> {
  const byStore = new Map<number, string[]>()
  for (const c of chunks) if (c.store_id != null && c.blob != null) byStore.set(c.store_id, [...byStore.get(c.store_id) ?? [], c.blob])
  for (const [id, blobs] of byStore) await (await stores.byId(id)).delete(blobs).catch(() => undefined)
}

/** A stored chunk's gzip data as a stream, from its row or its store; null when its store has lost it. */
export async function openChunk(stores: RecordingStores, source: ChunkSource): Promise<Readable | null> {
  if (source.data !== null) return Readable.from([source.data])
  if (source.store_id === null || source.blob === null) return null
  return (await stores.byId(source.store_id)).get(source.blob)
}

/** A stored chunk's gzip data whole (export, migration); null when its store has lost it. */
export async function readChunk(stores: RecordingStores, source: ChunkSource): Promise<Buffer | null> {
  if (source.data !== null) return source.data
  const stream = await openChunk(stores, source)
  return stream === null ? null : buffer(stream)
}
