import Type, { type Static } from 'typebox'
import { byteSize } from '../util/limits.ts'
import { INFLATE_RATIO_FROM_BYTES, MAX_CHUNK_ID_LENGTH, MAX_CHUNK_JSON_BYTES, MAX_INFLATE_RATIO, MAX_REQUEST_INFLATED_BYTES } from './limits.ts'

/** How the SDK records a visit: whole, or held in memory until the visit has an error (`record: 'onError'`). */
export const RecordingMode = Type.Union([Type.Literal('whole'), Type.Literal('onError')], {
  description: 'How the visit is recorded: `whole` (from its start, the default) or `onError` (the last seconds before the '
    + 'visit\'s first error, then the rest of it). The first stored chunk of a visit sets its recording\'s mode.',
})
export type RecordingMode = Static<typeof RecordingMode>

export const RecordingUpload = Type.Object({
  id: Type.String({
    minLength: 1, maxLength: MAX_CHUNK_ID_LENGTH, pattern: '^[A-Za-z0-9_.:-]+$',
    description: 'Chunk id, unique within the session; a retried upload with the same id is stored once.',
  }),
  data: Type.String({
    pattern: '^[A-Za-z0-9+/]*={0,2}$',
    description: 'Base64 of the gzip-compressed JSON array of rrweb events (or of the plain array, which the service compresses). The first chunk of a recording opens with a '
      + 'full snapshot (Meta + FullSnapshot events); later ones continue the chunk before them unless they open with a new snapshot. '
      + `Compressed data that inflates beyond ${byteSize(MAX_CHUNK_JSON_BYTES)}, ${MAX_INFLATE_RATIO} times its size (past ${byteSize(INFLATE_RATIO_FROM_BYTES)}), `
      + `or with the request's other chunks ${byteSize(MAX_REQUEST_INFLATED_BYTES)}, refuses the whole request (413).`,
  }),
  mode: Type.Optional(RecordingMode),
}, { $id: 'RecordingUpload', title: 'RecordingUpload', additionalProperties: false })
export type RecordingUpload = Static<typeof RecordingUpload>

