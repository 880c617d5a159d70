import { toIso } from '../shared/time.ts'
import type { EventView, SessionDetailView, SessionView } from './schema.ts'
import { sql, type RawBuilder } from 'kysely'
import type { EventRow, SessionListRow } from '../visits/read.ts'
import type { SourceMapResolver } from '../sourcemaps/resolve.ts'
import type { ResolvedFrame } from '../sourcemaps/schema.ts'
import { FACT_LAYOUT, factsOf, type VisitorFacts } from '../visits/facts.ts'
import type { Db } from '../db/database.ts'
import { jsonInstant, jsonObject, jsonString, jsonText, writesListJson } from '../db/sql.ts'
import { SessionSchema, CountersSchema } from './schema.ts'

export function toSessionView(row: SessionListRow): SessionView {
  return {
    id: row.id,
    sessionKey: row.session_key,
    startedAt: toIso(row.started_at),
    lastSeenAt: toIso(row.last_seen_at),
    ...factsOf(row),
    events: { total: row.events_total, errors: row.events_errors, slow: row.events_slow },
  }
}

/**
 * toSessionView in SQL, where the engine writes a list page's JSON (src/db/sql.ts `writesListJson`; undefined
 * elsewhere): every property of the schema in the schema's order, so a page reads one string a row.
 * test/store/visits/json.test.ts holds it to the response serializer's bytes.
 */
export function sessionJson(db: Db): RawBuilder<string> | undefined {
  if (!writesListJson(db)) return undefined
  // The expression has no parameters: compiled once per database, it costs a request no query building.
  let compiled = compiledJson.get(db)
  if (compiled === undefined) {
    compiled = sql.raw<string>(sessionJsonSql().compile(db).sql)
    compiledJson.set(db, compiled)
  }
  return compiled
}
const compiledJson = new WeakMap<Db, RawBuilder<string>>()

function sessionJsonSql(): RawBuilder<string> {
  const counters: Record<keyof SessionView['events'], RawBuilder<unknown>> = {
    total: sql.ref('events_total'), errors: sql.ref('events_errors'), slow: sql.ref('events_slow'),
  }
  const fields: Record<keyof SessionView, RawBuilder<unknown>> = {
    id: jsonString('id'),
    sessionKey: jsonString('session_key'),
    startedAt: jsonInstant('started_at'),
    lastSeenAt: jsonInstant('last_seen_at'),
    ...factsJson(),
    events: jsonObject(inOrder(CountersSchema, counters)),
  }
  return jsonObject(inOrder(SessionSchema, fields))
}

/**
 * The visitor facts in SQL: a text fact quoted, an object-valued one as its stored JSON text (JSON.stringify wrote it,
 * so it is already what the serializer writes), `user` put together from its two columns.
 */
function factsJson(): Record<keyof VisitorFacts, RawBuilder<string>> {
  return Object.fromEntries(FACT_LAYOUT.map(({ key, columns: [first = 'ip', traits = 'user_traits'], json }) => {
    if (key !== 'user') return [key, json ? jsonText(first) : jsonString(first)]
    const user = jsonObject([['id', jsonString(first)], ['traits', jsonText(traits)]])
    return [key, sql<string>`case when ${sql.ref(first)} is null then 'null' else ${user} end`]
  })) as Record<keyof VisitorFacts, RawBuilder<string>>
}

/** A schema's properties in its order, each with its piece; one the pieces lack fails at once. */
function inOrder(schema: { properties: object }, pieces: Partial<Record<string, RawBuilder<unknown>>>): [string, RawBuilder<unknown>][] {
  return Object.keys(schema.properties).map((key) => {
    const piece = pieces[key]
    if (piece === undefined) throw new Error(`sessionJson: no SQL for the property ${key}`)
    return [key, piece]
  })
}

export function toDetailView(row: SessionListRow): SessionDetailView {
  const chunks = row.recording_chunks
  return { ...toSessionView(row), recording: { available: chunks > 0, chunks } }
}

/** An event's stored fields as the API writes them: all of SessionEvent but `frames`, which reads compute (export writes these). */
export type EventFields = Omit<EventView, 'frames'>

export function toEventFields(row: EventRow): EventFields {
  const view: EventFields = {
    id: row.id,
    type: row.type,
    createdAt: toIso(row.created_at),
    message: row.message,
    stack: row.stack,
    statusCode: row.status_code,
    durationMs: row.duration_ms,
    reqBody: row.req_body,
    resBody: row.res_body,
    fingerprint: row.fingerprint,
    issueId: row.issue_id,
  }
  if (row.url !== null) view.url = row.url
  if (row.method !== null) view.method = row.method
  return view
}

/** The API's event: its fields, and its stack's frames as resolved (null without a stack). */
export function toEventView(row: EventRow, frames: ResolvedFrame[] | null): EventView {
  // Added to the object rather than spread into a new one: V8 makes a spread copy of these objects a
  // slow dictionary, which made building and serializing a 200-event session ~8x dearer.
  const view = toEventFields(row) as EventView
  view.frames = frames
  return view
}

/**
 * The API's events, their stacks mapped through the project's source maps as they are read. The
 * events of a page often repeat one stack, so each distinct stack is resolved once.
 */
export async function toEventViews(sourceMaps: SourceMapResolver, projectId: string, rows: readonly EventRow[]): Promise<EventView[]> {
  const stacks = new Map<string, Promise<ResolvedFrame[] | null>>()
  for (const { stack } of rows) if (stack !== null && !stacks.has(stack)) stacks.set(stack, sourceMaps.resolveStack(projectId, stack))
  // Awaited once per distinct stack, not once per event.
  const resolved = new Map<string, ResolvedFrame[] | null>()
  await Promise.all([...stacks].map(async ([stack, frames]) => { resolved.set(stack, topContextOnly(await frames)) }))
  return rows.map((row) => toEventView(row, row.stack === null ? null : resolved.get(row.stack) ?? null))
}

/**
 * A visit's stacks keep source context on their top in-app frame only, the line that failed: a visit of
 * 200 errors with context on every in-app frame was 2.3x the bytes of the same visit unmapped, and the
 * bytes are what a read costs. The issue's latest event (GET /api/v1/issues/{id}) keeps it on every frame.
 */
function topContextOnly(frames: ResolvedFrame[] | null): ResolvedFrame[] | null {
  if (!frames) return null
  const top = frames.findIndex((f) => f.context !== null)
  return frames.map((f, i) => (i > top && f.context !== null
    ? { function: f.function, file: f.file, line: f.line, column: f.column, mapped: f.mapped, inApp: f.inApp, context: null } : f))
}
