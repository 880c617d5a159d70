import { sql, type Kysely } from 'kysely'
import type { Database, Db } from '../../database.ts'
import { fileStore } from './file.ts'
import { s3Store, type S3Settings } from './s3.ts'
import { parseStoreUrl, type RecordingsConfig, type StoreUrl } from './url.ts'
import type { RecordingStoreTable } from './table.ts'
import type { BlobStore } from './types.ts'

/** Opens the store a URL names; null for `database:`, whose chunks are in their rows. */
export function openStore(url: StoreUrl, s3: S3Settings): BlobStore | null {
  if (url.kind === 'database') return null
  return url.kind === 'file' ? fileStore(url.root) : s3Store(url.bucket, url.prefix, s3)
}

/**
 * The id `recording_stores` gives a store's URL, registering it the first time it is used. Ids are numbered here, not
 * by the engine (which numbers differently on each): two processes registering at once collide on the id or the URL,
 * do nothing, and the loser reads the winner's row or tries the next number.
 */
export async function storeIdOf(db: Kysely<Database>, url: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const known = await db.selectFrom('recording_stores').select('id').where('url', '=', url).executeTakeFirst()
    if (known) return known.id
    if (attempt === 3) throw new Error(`could not register the recording store ${url}`)
    await db.insertInto('recording_stores').columns(['id', 'url'])
      // `where true`: SQLite reads an ON CONFLICT after a bare SELECT as a join's ON.
      .expression((eb) => eb.selectFrom('recording_stores').select([sql<number>`coalesce(max(id), 0) + 1`.as('id'), sql.val(url).as('url')])
        .where(sql<boolean>`true`))
      .onConflict((oc) => oc.doNothing()).execute()
  }
}

/** Every registered store, by id. */
export function registeredStores(db: Db): Promise<RecordingStoreTable[]> {
  return db.selectFrom('recording_stores').select(['id', 'url']).orderBy('id').execute()
}

/**
 * The stores of a process: the one new chunks go to (`current`, null for `database:`), and any other a chunk row
 * names (chunks written before RECORDINGS_URL changed, or moved by `storage migrate` while the service runs), opened
 * when first needed with this process's S3 settings.
 */
export interface RecordingStores {
  readonly current: { id: number; store: BlobStore } | null
  readonly config: RecordingsConfig
  byId(id: number): Promise<BlobStore>
  close(): Promise<void>
}

export async function openStores(db: Kysely<Database>, config: RecordingsConfig): Promise<RecordingStores> {
  const opened = new Map<number, BlobStore>()
  const store = openStore(config.store, config.s3)
  const current = store === null ? null : { id: await storeIdOf(db, store.url), store }
  if (current) opened.set(current.id, current.store)
  return {
    current,
    config,
    async byId(id) {
      const known = opened.get(id)
      if (known) return known
      const row = await db.selectFrom('recording_stores').select('url').where('id', '=', id).executeTakeFirst()
      const url = row ? parseStoreUrl(row.url, (p) => p) : `no store has id ${id}`
      if (typeof url === 'string') throw new Error(`recording store ${id}: ${url}`)
      const other = openStore(url, config.s3)
      if (other === null) throw new Error(`recording store ${id} is the database`)
      opened.set(id, other)
      return other
    },
    async close() {
      await Promise.all([...opened.values()].map((s) => s.close()))
      opened.clear()
    },
  }
}
