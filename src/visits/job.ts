import type { EventRecord, VisitorFacts } from '../contract/index.ts'
import type { EventGroup } from '../issues/index.ts'
import type { ChunkRecord } from './write-chunks.ts'

/** What is known of a session before its events are stored. */
export interface SessionSeed extends VisitorFacts {
  /** Import keeps the exported id; ingest leaves it to the server. */
  id?: string
  sessionKey: string
  /** Bounds known besides the events' own times (import carries them). */
  startedAt?: number
  lastSeenAt?: number
}

/** One visitor's batch, as writeBatches takes it: its events, and its recording chunks if any. */
export interface WriteJob {
  projectId: string
  seed: SessionSeed
  events: readonly EventRecord[]
  /** Per event, the issue grouping put it in (src/issues/grouping.ts groupEvents), or null: not grouped. */
  groups: readonly (EventGroup | null)[]
  cutoff: number
  now: number
  /** Screen recording chunks of the same session, stored in the same savepoint. */
  recording?: { chunks: readonly ChunkRecord[]; maxSessionBytes: number }
}
