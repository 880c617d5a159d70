import Type, { type Static } from 'typebox'
import { MAX_RELEASE_LENGTH } from '../../common/limits.ts'
import { MAX_SOURCEMAP_BYTES } from './limits.ts'
import { TEXT_LIMITS } from '../contract/limits.ts'
import { ResolvedFrameSchema } from '../contract/index.ts'
import { describedPattern, Nullable } from '../util/schema.ts'

/** How a debug ID may be written: hex digits and dashes (the TC39 proposal's reader pattern). */
export const DEBUG_ID_PATTERN = describedPattern('^[a-fA-F0-9-]{12,}$', 'a debug ID: a UUID such as 85314830-023f-4cf1-a267-535f4e37bb17')

export const StoredSourceMapSchema = Type.Object({
  id: Type.String({ description: 'Identifier of the stored map; a new upload for the same url gets a new one.' }),
  url: Type.String({ description: 'The minified file\'s URL the map applies to (or a `~/path` matching any scheme and host).' }),
  file: Type.String({ description: 'The map\'s file name as uploaded.' }),
  debugId: Nullable(Type.String({ description: 'Debug ID of the bundle and map (lowercase UUID), when known.' })),
  release: Nullable(Type.String({ description: 'Release the map was uploaded for, when given.' })),
  bytes: Type.Integer({ description: 'Size of the map, uncompressed.' }),
  createdAt: Type.String({ format: 'date-time', description: 'When it was uploaded.' }),
}, { $id: 'StoredSourceMap', title: 'StoredSourceMap', additionalProperties: false })
export type StoredSourceMap = Static<typeof StoredSourceMapSchema>

export const SourceMapUploadQuery = Type.Object({
  url: Type.String({
    minLength: 1, maxLength: TEXT_LIMITS.url,
    description: 'Public URL of the minified file the map belongs to (https://shop.example/static/app.js), or `~/path` '
      + '(~/static/app.js) to match that path on any scheme and host. Query and fragment are dropped.',
  }),
  release: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_RELEASE_LENGTH, description: 'Release name, kept with the map.' })),
  debugId: Type.Optional(Type.String({
    pattern: DEBUG_ID_PATTERN, description: 'Debug ID of the bundle (a UUID); must agree with the map\'s own `debugId` when it has one.',
  })),
  file: Type.Optional(Type.String({
    minLength: 1, maxLength: TEXT_LIMITS.url, description: 'The map\'s file name, for listings; default: the url\'s last segment + ".map".',
  })),
})
export type SourceMapUploadQuery = Static<typeof SourceMapUploadQuery>

/** The body is the map's bytes, parsed and checked by the service (as the CLI's files are), so the schema only documents it. */
export const SourceMapUploadBody = Type.Unsafe<Uint8Array>({
  $id: 'SourceMapUpload', title: 'SourceMapUpload',
  description: `The source map file as the bundler wrote it (version 3 JSON), up to ${MAX_SOURCEMAP_BYTES} bytes uncompressed; `
    + 'with `Content-Encoding: gzip` it may be sent compressed.',
})

export const sourceMapSchemas = [ResolvedFrameSchema, StoredSourceMapSchema, SourceMapUploadBody]
