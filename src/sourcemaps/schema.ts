import Type, { type Static } from 'typebox'
import { MAX_RELEASE_LENGTH, MAX_SOURCEMAP_BYTES, SOURCE_CONTEXT_LINES, TEXT_LIMITS } from '../../common/limits.ts'
import { Nullable } from '../shared/schema.ts'

/** How a debug ID may be written: hex digits and dashes (the TC39 proposal's reader pattern). */
export const DEBUG_ID_PATTERN = '^[a-fA-F0-9-]{12,}$'

/** One stack frame of an error event, mapped to the original source through an uploaded source map when one matches. */
export const ResolvedFrameSchema = Type.Object({
  function: Nullable(Type.String({ description: 'Function name; null when anonymous.' })),
  file: Nullable(Type.String({ description: 'Script URL, or the original source file when mapped.' })),
  line: Nullable(Type.Integer({ minimum: 1, description: 'Line, 1-based.' })),
  column: Nullable(Type.Integer({ minimum: 1, description: 'Column, 1-based.' })),
  mapped: Type.Boolean({
    description: 'Whether an uploaded source map gave the original position. When false, function, file, line and '
      + 'column are as the browser printed them (as in `stack`, which keeps every frame as printed), and context is null.',
  }),
  inApp: Type.Boolean({
    description: 'false for library and browser code: a source under node_modules, one the map lists in its '
      + 'ignoreList, or a browser extension\'s script.',
  }),
  context: Nullable(Type.Object({
    pre: Type.Array(Type.String(), { description: `Up to ${SOURCE_CONTEXT_LINES} lines before line.` }),
    line: Type.String({ description: 'The frame\'s line of original source.' }),
    post: Type.Array(Type.String(), { description: `Up to ${SOURCE_CONTEXT_LINES} lines after line.` }),
  }, {
    additionalProperties: false,
    description: 'The original source around the frame, from the map\'s sourcesContent; null when unmapped, when the map has '
      + 'none, and for library frames (inApp false). In a session\'s events only the top frame with context keeps it; the '
      + 'issue\'s latestEvent keeps it on every frame.',
  })),
}, {
  $id: 'ResolvedFrame', title: 'ResolvedFrame', additionalProperties: false,
  description: 'A stack frame, mapped to the original source when an uploaded source map matches its script: by exact '
    + 'URL, else by a `~/path` map with the same path; query and fragment ignored. `function` is the name of the original '
    + 'function around the position (found in sourcesContent), else the printed name.',
})
export type ResolvedFrame = Static<typeof ResolvedFrameSchema>

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
