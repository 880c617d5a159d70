/** Row shape of `source_maps`, owned by src/sourcemaps/store.ts. Times are epoch milliseconds. */
export interface SourceMapTable {
  project_id: string
  id: string
  /**
   * The public URL of the minified file the map belongs to, without query or fragment; or `~/path`,
   * which matches that path on any scheme and host. Unique per project: a newer upload replaces the row.
   */
  url: string
  /** The debug ID of the bundle and its map, canonical (lowercase, 8-4-4-4-12 when it is a UUID), or null. */
  debug_id: string | null
  release: string | null
  /** The map's file name as uploaded (relative to the uploaded directory, or as the upload named it). */
  file: string
  /** Uncompressed size of the map. */
  bytes: number
  /** gzip of the map's JSON, as uploaded. */
  data: Buffer
  created_at: number
}
