/**
 * Where recording chunks' bytes live: RECORDINGS_URL names a folder (`file:`), an S3 bucket (`s3://`) or the database
 * itself (`database:`). Chunk rows (src/visits) keep the metadata and which store holds the object; this module writes,
 * reads and deletes the objects. docs/scaling.md explains the settings.
 */
export * from './chunks.ts'
export * from './registry.ts'
export * from './types.ts'
export * from './url.ts'
