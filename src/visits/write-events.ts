/**
 * A visit's events as writeBatches (write.ts) stores them: a private step of that one write operation, in a file of
 * its own for length. A batch's events are inserted at once (`insertEvents`) when it runs in a savepoint of its own, or
 * joined with the rest of the group's live batches (`GroupEvents`) into a few multi-row INSERTs before the commit.
 */
import type { OnConflictBuilder } from 'kysely'
import type { Database, Db } from '../database.ts'
import { rowsOfArrays, takesArrays } from '../db/sql.ts'
import { runReused } from '../db/reuse.ts'
import { countTypes, type EventRecord } from '../contract/index.ts'
import type { IssueDeltas, IssueTarget } from '../issues/index.ts'
import type { PageDeltas } from '../pages/index.ts'
import type { EventTable } from './tables.ts'

/** Rows per INSERT, largest first: well under both engines' bound-parameter limits (18 columns each), and few sizes,
 * so that SQLite's statement cache (src/db/sqlite/dialect.ts) keeps each prepared whatever the group's row count. */
const INSERT_SIZES = [500, 100, 20, 5, 1] as const

/** The events columns in the order toRow writes them, which is the order Kysely compiles them in, with their SQL types. */
const EVENT_TYPES = {
  project_id: 'text', session_id: 'text', id: 'text', seq: 'integer', type: 'text', created_at: 'bigint', url: 'text', method: 'text',
  message: 'text', stack: 'text', status_code: 'integer', duration_ms: 'double precision', req_body: 'text', res_body: 'text',
  fingerprint: 'text', issue_id: 'text', frames: 'text', detail: 'text',
} as const satisfies Record<keyof EventTable, string>
const EVENT_COLUMNS = Object.keys(EVENT_TYPES) as (keyof EventTable)[]

function toRow(projectId: string, sessionId: string, seq: number, e: EventRecord, issueId: string | null): EventTable {
  return {
    project_id: projectId, session_id: sessionId, id: e.id, seq, type: e.type, created_at: e.createdAt,
    url: e.url, method: e.method, message: e.message, stack: e.stack, status_code: e.statusCode,
    duration_ms: e.durationMs, req_body: e.reqBody, res_body: e.resBody, fingerprint: e.fingerprint, issue_id: issueId,
    frames: e.frames == null ? null : JSON.stringify(e.frames),
    detail: e.detail == null ? null : JSON.stringify(e.detail),
  }
}

/**
 * Characters of event text in one PostgreSQL INSERT of arrays at most. pg writes an array parameter as one literal in
 * one synchronous step, escaping every quote and backslash of its texts: a megabyte of quote-heavy text held the event
 * loop 60-70 ms (statements of 256 Ki characters, up to 35 ms), and a group of busy batches holds several. Larger
 * groups are split into statements of this much text, a round trip apart; an ordinary group is one statement.
 */
const ARRAY_INSERT_TEXT_CHARS = 131_072

const textChars = (row: EventTable | undefined): number => row === undefined ? 0
  : (row.url?.length ?? 0) + (row.message?.length ?? 0) + (row.stack?.length ?? 0) + (row.req_body?.length ?? 0) + (row.res_body?.length ?? 0)
    + (row.frames?.length ?? 0) + (row.detail?.length ?? 0)

/**
 * Inserts rows, skipping ids already stored; returns how many were new. On PostgreSQL one statement of a column's
 * values per parameter (takesArrays) per ARRAY_INSERT_TEXT_CHARS of text; on SQLite rows of VALUES, each statement built once per row count (runReused),
 * and the counts are INSERT_SIZES. The values go in EVENT_COLUMNS order.
 */
async function insertRows(trx: Db, rows: readonly EventTable[]): Promise<number> {
  if (rows.length === 0) return 0
  const skipStored = (oc: OnConflictBuilder<Database, 'events'>) => oc.columns(['project_id', 'session_id', 'id']).doNothing()
  let inserted = 0
  if (takesArrays(trx)) {
    for (let i = 0; i < rows.length;) {
      let end = i + 1
      for (let chars = textChars(rows[i]); end < rows.length && chars + textChars(rows[end]) <= ARRAY_INSERT_TEXT_CHARS; end++) chars += textChars(rows[end])
      const chunk = rows.slice(i, end)
      i = end
      const arrays = EVENT_COLUMNS.map((c) => chunk.map((r) => r[c]))
      const result = await runReused(trx, 'insert events as arrays', arrays, () => trx.insertInto('events').columns(EVENT_COLUMNS)
        .expression(rowsOfArrays(EVENT_COLUMNS.map((c, k) => [arrays[k] ?? [], EVENT_TYPES[c]]))).onConflict(skipStored))
      inserted += Number(result.numAffectedRows ?? 0)
    }
    return inserted
  }
  for (let i = 0; i < rows.length;) {
    const size = INSERT_SIZES.find((s) => s <= rows.length - i) ?? 1
    const chunk = rows.slice(i, i + size)
    i += size
    const params = chunk.flatMap((r) => EVENT_COLUMNS.map((c) => r[c]))
    const result = await runReused(trx, `insert events ${chunk.length}`, params, () => trx.insertInto('events').values(chunk).onConflict(skipStored))
    inserted += Number(result.numAffectedRows ?? 0)
  }
  return inserted
}

/** A batch's events as stored: where they go and the issue each is counted in. */
export interface EventPlacement {
  projectId: string
  sessionId: string
  /** The seq of the first event; the batch holds base … base + events.length - 1, reserved for it alone. */
  base: number
  events: readonly EventRecord[]
  issueIds: readonly (string | null)[]
}

/** Inserts a batch's events with seq numbers from `base`, skipping ids already stored; returns how many were new. */
export async function insertEvents(trx: Db, p: EventPlacement): Promise<number> {
  return insertRows(trx, placedRows(p))
}

const placedRows = (p: EventPlacement): EventTable[] =>
  p.events.map((e, j) => toRow(p.projectId, p.sessionId, p.base + j, e, p.issueIds[j] ?? null))

export interface StoredEvent {
  /** Its place in the batch's events. */
  index: number
  id: string
  type: string
  issueId: string | null
  createdAt: number
}

/**
 * The events this batch stored: all of them, none, or (a partly retried batch) those holding its seq range, which no
 * other batch can hold. `inserted` null: unknown, read them.
 */
export async function insertedRows(trx: Db, p: EventPlacement, inserted: number | null): Promise<StoredEvent[]> {
  if (inserted === p.events.length) {
    return p.events.map((e, i) => ({ index: i, id: e.id, type: e.type, issueId: p.issueIds[i] ?? null, createdAt: e.createdAt }))
  }
  if (inserted === 0) return []
  const rows = await trx.selectFrom('events').select(['seq', 'id', 'type', 'issue_id', 'created_at']).where('project_id', '=', p.projectId)
    .where('session_id', '=', p.sessionId).where('seq', '>=', p.base).where('seq', '<', p.base + p.events.length).orderBy('seq').execute()
  return rows.map((r) => ({ index: r.seq - p.base, id: r.id, type: r.type, issueId: r.issue_id, createdAt: r.created_at }))
}

/** Counts a batch's stored events (`rows`, insertedRows') into its page counters. */
export function countPages(pages: PageDeltas, p: EventPlacement, rows: readonly StoredEvent[]): void {
  pages.add(p.projectId, rows.length === p.events.length ? p.events : rows.flatMap((r) => p.events[r.index] ?? []))
}

/**
 * Takes back a live batch's optimistic counters for the events it did not store (they were stored already: a retry).
 * `counted` is what the batch added when it reserved its seq range.
 */
export async function correctCounters(trx: Db, p: EventPlacement, counted: ReturnType<typeof countTypes>, rows: readonly StoredEvent[]): Promise<void> {
  if (rows.length === p.events.length) return
  const stored = countTypes(rows.map((r) => r.type))
  await trx.updateTable('sessions').set((eb) => ({
    events_total: eb('events_total', '-', counted.total - stored.total),
    events_errors: eb('events_errors', '-', counted.errors - stored.errors),
    events_slow: eb('events_slow', '-', counted.slow - stored.slow),
  })).where('project_id', '=', p.projectId).where('id', '=', p.sessionId).execute()
}

/** A live batch whose events wait for the group's INSERT, with what it counted and where its result goes. */
interface Waiting extends EventPlacement {
  counted: ReturnType<typeof countTypes>
  targets: ReadonlyMap<string, IssueTarget>
  /** The batch's issue counts, filled once its stored events are known. */
  deltas: IssueDeltas
  /** The batch's page counts, likewise. */
  pages: PageDeltas
  job: number
  result: { accepted: number; duplicates: number }
}

/**
 * The events of a group's live batches (write.ts appendToLiveSession), inserted together before the commit: a
 * group of 25 twenty-event batches is one INSERT of 500 rows instead of 25, which on PostgreSQL are 25 round trips
 * and statements (docs/performance.md). A batch's seq range is reserved when it is added, so the rows of every batch
 * keep the place they would have had, and a retried batch is told from its stored rows as before. Only for a group
 * written without savepoints: a batch in a savepoint of its own inserts at once, so that a failure is its own.
 */
export class GroupEvents {
  private readonly waiting: Waiting[] = []

  /** Adds a batch's events; its `result` (all accepted until then) and `deltas` are filled by `insert`. */
  add(batch: Waiting): void {
    this.waiting.push(batch)
  }

  /** Inserts every waiting batch's events, then counts each batch's stored events into its issue deltas and corrects its counters. */
  async insert(trx: Db): Promise<void> {
    if (this.waiting.length === 0) return
    const rows = this.waiting.flatMap(placedRows)
    const inserted = await insertRows(trx, rows)
    for (const w of this.waiting) {
      // Every row new (the rule): each batch stored all of its own. Otherwise each reads which of its rows it stored.
      const stored = await insertedRows(trx, w, inserted === rows.length ? w.events.length : null)
      if (w.targets.size > 0) w.deltas.add(w.projectId, w.sessionId, stored, w.targets, w.job)
      countPages(w.pages, w, stored)
      await correctCounters(trx, w, w.counted, stored)
      w.result.accepted = stored.length
      w.result.duplicates = w.events.length - stored.length
    }
  }
}
