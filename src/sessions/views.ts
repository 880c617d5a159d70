import { toIso } from '../util/time.ts'
import type { EventDetail, EventView, ResolvedFrame, SessionDetailView, SessionView } from '../contract/index.ts'
import { factsOf, type EventRow, type SessionListRow } from '../visits/index.ts'
import type { SourceMapResolver } from '../sourcemaps/resolve.ts'

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
  if (row.detail !== null) Object.assign(view, JSON.parse(row.detail) as EventDetail)
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
 * The API's events, their stacks mapped through the project's source maps as they are read; an event whose SDK sent
 * its frames structured (a server Sentry SDK's) shows those.
 */
export async function toEventViews(sourceMaps: SourceMapResolver, projectId: string, rows: readonly EventRow[]): Promise<EventView[]> {
  const resolved = await resolveStacks(sourceMaps, projectId, rows.filter((row) => row.frames === null))
  const sent = new Map<string, ResolvedFrame[]>()
  return rows.map((row) => {
    if (row.frames === null) return toEventView(row, row.stack === null ? null : resolved.get(row.stack) ?? null)
    // Parsed once per distinct text: one bug repeats its frames in every event, and the stream writes each once.
    let frames = sent.get(row.frames)
    if (frames === undefined) sent.set(row.frames, frames = topContextOnly(sdkFrames(row.frames)))
    return toEventView(row, frames)
  })
}

/** One event's frames with source context on every frame that has it (the issue's latest event). */
export async function eventFrames(sourceMaps: SourceMapResolver, projectId: string, row: Pick<EventRow, 'stack' | 'frames'>): Promise<ResolvedFrame[] | null> {
  return row.frames === null ? sourceMaps.resolveStack(projectId, row.stack) : sdkFrames(row.frames)
}

/** The stored frames of an SDK (contract SdkFrames): the service wrote them, so they are read as they are. */
const sdkFrames = (json: string): ResolvedFrame[] => JSON.parse(json) as ResolvedFrame[]

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
function topContextOnly<F extends ResolvedFrame[] | null>(frames: F): F {
  if (!frames) return frames
  const top = frames.findIndex((f) => f.context !== null)
  return frames.map((f, i) => (i > top && f.context !== null ? { ...f, context: null } : f)) as F
}
