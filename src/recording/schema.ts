import Type, { type Static } from 'typebox'
import { byteSize, INFLATE_RATIO_FROM_BYTES, MAX_CHUNK_ID_LENGTH, MAX_CHUNK_JSON_BYTES, MAX_INFLATE_RATIO, MAX_REQUEST_INFLATED_BYTES } from '../../common/limits.ts'
import { SessionParams } from '../sessions/schema.ts'

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
}, { $id: 'RecordingUpload', title: 'RecordingUpload', additionalProperties: false })
export type RecordingUpload = Static<typeof RecordingUpload>

export const RecordingSummary = Type.Object({
  available: Type.Boolean({ description: 'Whether a screen recording exists for the session (chunks > 0).' }),
  chunks: Type.Integer({ description: 'Chunks stored.' }),
  bytes: Type.Integer({ description: 'Compressed bytes stored, counted against RECORDING_MAX_SESSION_BYTES.' }),
  droppedChunks: Type.Integer({
    description: 'Chunks refused by the size limits (RECORDING_MAX_CHUNK_BYTES per chunk, RECORDING_MAX_SESSION_BYTES '
      + 'per session). Each chunk id is counted once, however often it is retried.',
  }),
}, { $id: 'RecordingSummary', title: 'RecordingSummary', additionalProperties: false })

export const ChunkMeta = Type.Object({
  id: Type.String({ description: 'Chunk id; its data is at `/api/v1/sessions/{id}/recording/chunks/{chunkId}`.' }),
  startedAt: Type.String({ format: 'date-time', description: 'First recorded event, on the same clock as the event times.' }),
  endedAt: Type.String({ format: 'date-time', description: 'Last recorded event.' }),
  events: Type.Integer({ description: 'rrweb events in the chunk.' }),
  bytes: Type.Integer({ description: 'Compressed size.' }),
  fullSnapshot: Type.Boolean({ description: 'Whether the chunk opens with a full snapshot, so a replay can start at it.' }),
}, { $id: 'RecordingChunk', title: 'RecordingChunk', additionalProperties: false })

export const RecordingResponse = Type.Object({
  project: Type.Ref('Project'),
  sessionId: Type.String(),
  recording: Type.Ref('RecordingSummary'),
  chunks: Type.Array(Type.Ref('RecordingChunk'), { description: 'Stored chunks in recording order (startedAt, then id).' }),
}, { $id: 'SessionRecording', title: 'SessionRecording', additionalProperties: false })

export const ChunkParams = Type.Object({
  id: SessionParams.properties.id,
  chunkId: Type.String({ maxLength: MAX_CHUNK_ID_LENGTH, description: 'Chunk identifier, from the chunk list.' }),
})

export const ChunkEvents = Type.Array(Type.Object({
  type: Type.Integer({ description: 'rrweb event type (2 full snapshot, 3 incremental, 4 meta, …).' }),
  timestamp: Type.Number({ description: 'Visitor clock, epoch milliseconds.' }),
}, { additionalProperties: true }), {
  $id: 'RecordingChunkEvents', title: 'RecordingChunkEvents',
  description: 'The chunk\'s rrweb events as JSON, ready for rrweb-player / @rrweb/replay. Sent with '
    + '`Content-Encoding: gzip` when the request accepts gzip (as stored, no work on the server), plain otherwise.',
})

export const recordingSchemas = [RecordingSummary, ChunkMeta, RecordingResponse, ChunkEvents, RecordingUpload]
