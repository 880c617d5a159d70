import type { Kysely, Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * Uploaded source maps (src/sourcemaps/), looked up by the script URL of a stack frame or by debug ID.
 * One map per (project, url): a newer upload replaces the row, so the unique key is also the lookup index.
 * `data` is the gzip of the map as uploaded; `bytes` its uncompressed size, which the parsed-map cache weighs.
 */
export const sourceMaps = ({ key, blob: bytes }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('source_maps')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('url', key, (c) => c.notNull())
      .addColumn('debug_id', key)
      .addColumn('release', 'text')
      .addColumn('file', 'text', (c) => c.notNull())
      .addColumn('bytes', 'bigint', (c) => c.notNull())
      .addColumn('data', bytes, (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('source_maps_pk', ['project_id', 'id'])
      .addUniqueConstraint('source_maps_url_uq', ['project_id', 'url'])
      .execute()
    await db.schema.createIndex('source_maps_debug_id_idx').on('source_maps').columns(['project_id', 'debug_id']).execute()
  },
})
