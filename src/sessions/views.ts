import { toIso } from '../shared/time.ts'
import type { EventView, SessionDetailView, SessionView } from './schema.ts'
import type { EventRow, SessionListRow } from '../visits/read.ts'
import { factsOf } from '../visits/facts.ts'

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

export function toEventView(row: EventRow): EventView {
  const view: EventView = {
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
