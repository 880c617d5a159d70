/**
 * Visits made to order for the tests: what ingest receives (a batch body), what the visit's write
 * operation stores (an event record, a write job), and a visit stored through that operation.
 */
import { noFacts } from '../../src/visits/facts.ts'
import assert from 'node:assert/strict'
import type { Kysely } from 'kysely'
import type { Database } from '../../src/database.ts'
import type { EventRecord } from '../../src/contract/event-types.ts'
import { writeBatches, type AppendResult, type WriteJob } from '../../src/visits/write.ts'
import type { EventGroup } from '../../src/issues/store.ts'

let batchCounter = 0
/** A valid ingest batch body of `events` for `sessionKey`, with a batch id of its own. */
export function batch(sessionKey: string, events: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  batchCounter++
  return { sessionKey, batchId: `batch-${batchCounter}-${Date.now()}`, events, ...extra }
}

/** A stored-shape event: every field null but the ones given. */
export const eventRecord = (id: string, createdAt: number, type = 'CLICK', fields: Partial<EventRecord> = {}): EventRecord => ({
  id, type, createdAt, url: null, method: null, message: 'm', stack: null, statusCode: null, durationMs: null,
  reqBody: null, resBody: null, fingerprint: null, ...fields,
})

/**
 * One visitor's batch as the write operation takes it; nothing past retention unless `cutoff` says so.
 * No event is grouped unless `groups` says how.
 */
export const writeJob = (
  projectId: string, sessionKey: string, events: readonly EventRecord[], now: number, cutoff = 0,
  groups: readonly (EventGroup | null)[] = events.map(() => null),
): WriteJob => ({
  projectId, seed: { ...noFacts(), sessionKey }, events, groups, cutoff, now,
})

/** Stores one batch through the visit's write operation, as ingest does, and returns what it stored. */
export async function storeVisit(
  db: Kysely<Database>, projectId: string, sessionKey: string, events: readonly EventRecord[], now: number,
): Promise<AppendResult> {
  const [outcome] = await writeBatches(db, [writeJob(projectId, sessionKey, events, now)])
  assert.ok(outcome && 'result' in outcome, 'the batch is stored')
  return outcome.result
}
