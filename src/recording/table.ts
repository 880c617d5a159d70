/** Row shape of `recording_chunks`: one upload of rrweb events, gzip-compressed JSON. Times are epoch ms. */
export interface RecordingChunkTable {
  project_id: string
  session_id: string
  /** The SDK's chunk id, unique within the session: a retried upload maps onto the same row. */
  id: string
  /** The first and last recorded event, corrected for the visitor clock skew like events are. */
  started_at: number
  ended_at: number
  events: number
  /** 1 when the chunk opens with a full snapshot, so a replay can start at it. */
  full_snapshot: number
  /** Compressed size: what counts against the limits. */
  bytes: number
  /** gzip of the JSON array of rrweb events; null when the chunk was dropped. */
  data: Buffer | null
  /** Why the chunk was dropped (chunk_too_large, session_limit), or null when stored. */
  dropped: string | null
  received_at: number
}
