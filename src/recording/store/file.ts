import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { type BlobStore, StoreFull, StoreUnavailable, type StoredObject } from './types.ts'

/** Suffix of a file being written: an interrupted write leaves nothing a reader can see, only an orphan for `storage check`. */
const PARTIAL = '.partial'

/**
 * Chunks as files under `root` (RECORDINGS_URL `file:PATH`). A put writes a temporary file, flushes it to disk, renames
 * it into place and flushes the folder, so a chunk answered 2xx survives a power cut and a reader never sees half a
 * file.
 */
export function fileStore(root: string): BlobStore {
  const url = `file:${root}`
  const at = (key: string) => path.join(root, ...key.split('/'))
  const fail = (error: unknown): never => {
    const code = (error as { code?: unknown }).code
    if (code === 'ENOSPC' || code === 'EDQUOT') throw new StoreFull(url)
    throw new StoreUnavailable(url, error)
  }
  return {
    url,
    async put(key, data) {
      const file = at(key)
      const dir = path.dirname(file)
      const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}${PARTIAL}`
      try {
        await fsp.mkdir(dir, { recursive: true })
        const handle = await fsp.open(partial, 'w')
        try {
          await handle.writeFile(data)
          await handle.sync()
        } finally {
          await handle.close()
        }
        await fsp.rename(partial, file)
        const folder = await fsp.open(dir, 'r')
        try { await folder.sync() } finally { await folder.close() }
      } catch (error) {
        await fsp.rm(partial, { force: true }).catch(() => undefined)
        fail(error)
      }
    },
    async get(key) {
      const file = at(key)
      try {
        const handle = await fsp.open(file, 'r')
        return handle.createReadStream()
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOENT') return null
        return fail(error)
      }
    },
    async delete(keys) {
      for (const key of keys) {
        await fsp.rm(at(key), { force: true }).catch(fail)
      }
    },
    async *list(): AsyncIterable<StoredObject> {
      if (!fs.existsSync(root)) return
      for await (const entry of walk(root)) {
        const stat = await fsp.stat(entry).catch(() => null)
        if (stat?.isFile()) yield { key: path.relative(root, entry).split(path.sep).join('/'), bytes: stat.size, modifiedAt: stat.mtimeMs }
      }
    },
    async disk() {
      try {
        await fsp.mkdir(root, { recursive: true })
        const s = await fsp.statfs(root)
        return s.blocks === 0 ? null : { free: s.bavail * s.bsize, total: s.blocks * s.bsize }
      } catch (error) {
        return fail(error)
      }
    },
    close: () => Promise.resolve(),
  }
}

async function *walk(dir: string): AsyncIterable<string> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const entry of entries) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(full)
    else yield full
  }
}
