import type { Kysely, Selectable } from 'kysely'
import type { Database, Db } from '../database.ts'
import { canMatch } from '../db/sql.ts'
import type { SourceMapTable } from './table.ts'

/*
 * The `source_maps` table: only this module reads or writes it.
 */

export type SourceMapRow = Selectable<SourceMapTable>
/** A stored map without its data: what lookups and listings need. */
export type SourceMapMeta = Omit<SourceMapRow, 'project_id' | 'data'>

const metaColumns = ['id', 'url', 'debug_id', 'release', 'file', 'bytes', 'created_at'] as const satisfies readonly (keyof SourceMapRow)[]

/**
 * Stores maps in one transaction, all or none. A map for a URL already stored replaces that row —
 * its id, data, debug ID, release and time — so the newest upload for a URL is the one used.
 */
export async function replaceSourceMaps(db: Kysely<Database>, rows: readonly SourceMapRow[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const row of rows) {
      await trx.insertInto('source_maps').values(row)
        .onConflict((oc) => oc.columns(['project_id', 'url']).doUpdateSet((eb) => ({
          id: eb.ref('excluded.id'),
          debug_id: eb.ref('excluded.debug_id'),
          release: eb.ref('excluded.release'),
          file: eb.ref('excluded.file'),
          bytes: eb.ref('excluded.bytes'),
          data: eb.ref('excluded.data'),
          created_at: eb.ref('excluded.created_at'),
        })))
        .execute()
    }
  })
}

/** The project's maps, by URL. */
export function listSourceMaps(db: Db, projectId: string): Promise<SourceMapMeta[]> {
  return db.selectFrom('source_maps').select(metaColumns).where('project_id', '=', projectId).orderBy('url').execute()
}

/** Whether the project has stored any map. */
export async function hasSourceMaps(db: Db, projectId: string): Promise<boolean> {
  const row = await db.selectFrom('source_maps').select('id').where('project_id', '=', projectId).limit(1).executeTakeFirst()
  return row !== undefined
}

/** The project's maps stored for any of these URLs (exact strings, `~/path` ones included). */
export async function findByUrls(db: Db, projectId: string, urls: readonly string[]): Promise<SourceMapMeta[]> {
  const wanted = urls.filter(canMatch)
  if (wanted.length === 0) return []
  return db.selectFrom('source_maps').select(metaColumns).where('project_id', '=', projectId).where('url', 'in', wanted).execute()
}

/** The project's maps with any of these (canonical) debug IDs, newest first. */
export async function findByDebugIds(db: Db, projectId: string, debugIds: readonly string[]): Promise<SourceMapMeta[]> {
  const wanted = debugIds.filter(canMatch)
  if (wanted.length === 0) return []
  return db.selectFrom('source_maps').select(metaColumns).where('project_id', '=', projectId).where('debug_id', 'in', wanted)
    .orderBy('created_at', 'desc').execute()
}

/** The gzip-compressed map of a stored id; null when it has been replaced or deleted since it was looked up. */
export async function sourceMapData(db: Db, projectId: string, id: string): Promise<Buffer | null> {
  const row = await db.selectFrom('source_maps').select('data').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
  return row?.data ?? null
}

/** Deletes the project's map for one URL, or every map of the project; returns how many went. */
export async function deleteSourceMaps(db: Db, projectId: string, url: string | null): Promise<number> {
  let q = db.deleteFrom('source_maps').where('project_id', '=', projectId)
  if (url !== null) {
    if (!canMatch(url)) return 0
    q = q.where('url', '=', url)
  }
  const result = await q.executeTakeFirst()
  return Number(result.numDeletedRows)
}
