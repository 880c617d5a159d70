import Type from 'typebox'
import { MAX_CHUNK_ID_LENGTH } from '../contract/limits.ts'
import { RecordingMode, RecordingUpload } from '../contract/index.ts'
import { SessionParams } from '../sessions/schema.ts'

export const RecordingSummary = Type.Object({
  available: Type.Boolean({ description: 'Whether a screen recording exists for the session (chunks > 0).' }),
  chunks: Type.Integer({ description: 'Chunks stored.' }),
  bytes: Type.Integer({ description: 'Compressed bytes stored, counted against RECORDING_MAX_SESSION_BYTES.' }),
  droppedChunks: Type.Integer({
    description: 'Chunks refused by the size limits (RECORDING_MAX_CHUNK_BYTES per chunk, RECORDING_MAX_SESSION_BYTES '
      + 'per session), or because the recording store\'s disk was full. Each chunk id is counted once, however often it is retried.',
  }),
  mode: Type.Union([RecordingMode, Type.Null()], {
    description: 'How the visit was recorded: `whole` (from its start) or `onError` (the SDK\'s `record: \'onError\'`, or a Sentry '
      + 'replay buffered until an error: the replay starts shortly before the first error). null: no chunk was stored.',
  }),
  evicted: Type.Boolean({
    description: 'Whether the project\'s recording budget or the disk floor (RECORDINGS_MIN_FREE) deleted this visit\'s recording, '
      + 'oldest first. The visit and its events stay; `chunks` and `bytes` count what is left.',
  }),
  evictedBytes: Type.Integer({ description: 'Compressed bytes of recording deleted by a budget or the disk floor (0: none).' }),
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
