import { toIso } from '../util/time.ts'
import { CountersSchema, EventSchema, type EventView, type ResolvedFrame, ResolvedFrameSchema, type SessionDetailView, SessionSchema, type SessionView, type VisitorFacts } from '../contract/index.ts'
import { sql, type RawBuilder } from 'kysely'
import fastJson from 'fast-json-stringify'
import { type EventJsonRow, type EventJsonSql, FACT_LAYOUT, factsOf } from '../visits/index.ts'
import type { EventRow, SessionListRow } from '../visits/tables.ts'
import type { SourceMapResolver } from '../sourcemaps/resolve.ts'
import type { Db } from '../database.ts'
import {
  fractionOf, jsonObject, jsonWholeNumber, jsonWriter, writesEventJson, type JsonMember, type JsonWriter,
} from '../db/sql.ts'

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
 * Each session of a list page as the API's JSON: the text its row keeps (`sessions.list_json`, which
 * src/visits/list-json.ts keeps written as `sessionJsonOf` writes it), so a page reads one string a row.
 */
export const sessionJson = (): RawBuilder<string> => LIST_JSON
const LIST_JSON = sql.ref<string>('sessions.list_json')

/**
 * toSessionView in SQL: every property of the schema in the schema's order, from the columns of `table` (a trigger's
 * `new`) or of the row the statement is at; with the columns it reads, which a trigger must watch.
 * test/store/visits/json.test.ts holds it to the response serializer's bytes.
 */
export function sessionJsonOf(db: Db, table?: string): { json: RawBuilder<string>; columns: readonly string[] } {
  const columns = new Set<string>()
  const read = <T>(piece: (column: string) => T) => (column: string): T => {
    columns.add(column)
    return piece(column)
  }
  const writer = jsonWriter(db, table)
  const json: JsonWriter = { string: read(writer.string), instant: read(writer.instant), asIs: read(writer.asIs) }
  const expression = sessionJsonSql(json, read((column) => sql.ref(table === undefined ? column : `${table}.${column}`)))
  return { json: compiled(db, expression), columns: [...columns] }
}

/**
 * toEventView in SQL, where the engine writes events' JSON (src/db/sql.ts writesEventJson; undefined elsewhere): every
 * property of the schema in the serializer's order, `frames` null (toEventTexts writes in the frames reads resolve).
 * test/store/visits/json.test.ts holds it to the response serializer's bytes.
 */
export function eventJson(db: Db): EventJsonSql | undefined {
  if (!writesEventJson(db)) return undefined
  return once(compiledEventJson, db, () => {
    const { json, duration } = eventJsonSql(db)
    return { json: compiled(db, json), duration: compiled(db, duration) }
  })
}
const compiledEventJson = new WeakMap<Db, EventJsonSql>()

/** The value a map holds for a database, made the first time it is asked for. */
function once<T>(cache: WeakMap<Db, T>, db: Db, make: () => T): T {
  let value = cache.get(db)
  if (value === undefined) {
    value = make()
    cache.set(db, value)
  }
  return value
}

/** An expression without parameters as its SQL text for this database: compiled once, it costs a request no query building. */
const compiled = <T>(db: Db, expression: RawBuilder<T>): RawBuilder<T> => sql.raw<T>(expression.compile(db).sql)

function sessionJsonSql(json: JsonWriter, ref: (column: string) => RawBuilder<unknown>): RawBuilder<string> {
  const counters: Record<keyof SessionView['events'], RawBuilder<unknown>> = {
    total: ref('events_total'), errors: ref('events_errors'), slow: ref('events_slow'),
  }
  const fields: Record<keyof SessionView, RawBuilder<unknown>> = {
    id: json.string('id'),
    sessionKey: json.string('session_key'),
    startedAt: json.instant('started_at'),
    lastSeenAt: json.instant('last_seen_at'),
    ...factsJson(json, ref),
    events: jsonObject(inOrder(CountersSchema, counters)),
  }
  return jsonObject(inOrder(SessionSchema, fields))
}

/**
 * The visitor facts in SQL: a text fact quoted, an object-valued one as its stored JSON text (JSON.stringify wrote it,
 * so it is already what the serializer writes), `user` put together from its two columns.
 */
function factsJson(json: JsonWriter, ref: (column: string) => RawBuilder<unknown>): Record<keyof VisitorFacts, RawBuilder<string>> {
  return Object.fromEntries(FACT_LAYOUT.map(({ key, columns: [first = 'ip', traits = 'user_traits'], json: isJson }) => {
    if (key !== 'user') return [key, isJson ? json.asIs(first) : json.string(first)]
    const user = jsonObject([['id', json.string(first)], ['traits', json.asIs(traits)]])
    return [key, sql<string>`case when ${ref(first)} is null then 'null' else ${user} end`]
  })) as Record<keyof VisitorFacts, RawBuilder<string>>
}

/**
 * A schema's properties in the order its serializer writes them, each with its piece; one the pieces lack fails at
 * once. fast-json-stringify writes the required properties first, then the optional ones, each in the schema's order.
 */
function inOrder(schema: { properties: object; required?: readonly string[]; $id?: string }, pieces: Partial<Record<string, JsonMember>>): [string, JsonMember][] {
  const required = new Set(schema.required)
  const keys = Object.keys(schema.properties)
  return [...keys.filter((key) => required.has(key)), ...keys.filter((key) => !required.has(key))].map((key) => {
    const piece = pieces[key]
    if (piece === undefined) throw new Error(`${schema.$id ?? 'schema'}: no SQL for the property ${key}`)
    return [key, piece]
  })
}

/** A member the statement writes null and the service may write in (fillMember): frames, and a fractional durationMs. */
const FILLED_LATER = sql<string>`'null'`

function eventJsonSql(db: Db): EventJsonSql {
  const { string: jsonString, instant: jsonInstant, asIs: jsonAsIs } = jsonWriter(db)
  const fields: Record<keyof EventView, JsonMember> = {
    id: jsonString('id'),
    type: jsonString('type'),
    createdAt: jsonInstant('created_at'),
    url: { absentWhenNull: 'url', value: jsonString('url') },
    method: { absentWhenNull: 'method', value: jsonString('method') },
    message: jsonString('message'),
    stack: jsonString('stack'),
    statusCode: jsonAsIs('status_code'),
    durationMs: sql<string>`coalesce(${jsonWholeNumber('duration_ms')}, 'null')`,
    reqBody: jsonString('req_body'),
    resBody: jsonString('res_body'),
    fingerprint: jsonString('fingerprint'),
    issueId: jsonString('issue_id'),
    frames: FILLED_LATER,
  }
  return { json: jsonObject(inOrder(EventSchema, fields)), duration: fractionOf('duration_ms', sql.ref<number>('duration_ms')) }
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
 * The API's events, their stacks mapped through the project's source maps as they are read.
 */
export async function toEventViews(sourceMaps: SourceMapResolver, projectId: string, rows: readonly EventRow[]): Promise<EventView[]> {
  const resolved = await resolveStacks(sourceMaps, projectId, rows)
  return rows.map((row) => toEventView(row, row.stack === null ? null : resolved.get(row.stack) ?? null))
}

/** `frames` as the response schema serializes it (its property's own schema; TypeBox's type for it is not fast-json-stringify's). */
const framesJson = fastJson(EventSchema.properties.frames as unknown as Parameters<typeof fastJson>[0], { schema: { ResolvedFrame: ResolvedFrameSchema } })

/**
 * The API's events as JSON, from the text their statement wrote (eventJson): the frames of each stack, resolved as
 * toEventViews resolves them, and a fractional durationMs written in; an event without either goes as it was written.
 */
export async function toEventTexts(sourceMaps: SourceMapResolver, projectId: string, rows: readonly EventJsonRow[]): Promise<string[]> {
  const resolved = await resolveStacks(sourceMaps, projectId, rows)
  const frames = new Map<string, string>()
  for (const [stack, resolvedFrames] of resolved) frames.set(stack, framesJson(resolvedFrames))
  return rows.map(({ json, duration, stack }) => {
    let text = duration === null ? json : fillMember(json, 'durationMs', String(duration))
    const written = stack === null ? undefined : frames.get(stack)
    if (written !== undefined && written !== 'null') text = fillMember(text, 'frames', written)
    return text
  })
}

/**
 * `json` (a flat object the statement wrote) with the null value of its member `key` replaced by `value`. The member
 * is found by `,"key":null`: inside a JSON string every `"` is escaped, so a comma and a quote mark begin a member.
 */
function fillMember(json: string, key: keyof EventView, value: string): string {
  const name = `,${JSON.stringify(key)}:`
  const at = json.indexOf(`${name}null`)
  if (at < 0) throw new Error(`fillMember: no null ${key} in the statement's JSON`)
  return `${json.slice(0, at + name.length)}${value}${json.slice(at + name.length + 'null'.length)}`
}

/** The frames of each distinct stack of these events: the events of a session often repeat one, so each is resolved once. */
async function resolveStacks(
  sourceMaps: SourceMapResolver, projectId: string, rows: readonly { stack: string | null }[],
): Promise<Map<string, ResolvedFrame[] | null>> {
  const stacks = new Map<string, Promise<ResolvedFrame[] | null>>()
  for (const { stack } of rows) if (stack !== null && !stacks.has(stack)) stacks.set(stack, sourceMaps.resolveStack(projectId, stack))
  // Awaited once per distinct stack, not once per event.
  const resolved = new Map<string, ResolvedFrame[] | null>()
  await Promise.all([...stacks].map(async ([stack, frames]) => { resolved.set(stack, topContextOnly(await frames)) }))
  return resolved
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
