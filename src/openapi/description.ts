import { DEFAULT_RETENTION_DAYS } from '../../common/limits.ts'
import { MAX_LIMIT, MAX_OFFSET } from '../util/limits.ts'

/** Prose of the OpenAPI document: the decisions the spec leaves open, stated once. */
export const READ_API_DESCRIPTION = `Read-only access to the recorded visits (sessions) of one website project and the events inside each,
and, with a separate upload key, one write for CI: uploading the source maps that error stacks are mapped through when they are read.

**Authentication.** Every read operation needs the project's secret API key, as \`Authorization: Bearer <API_KEY>\` or
\`X-Api-Key: <API_KEY>\`: exactly one key. The same key in both headers is accepted; different keys (repeated
Authorization headers, Authorization and X-Api-Key, a repeated X-Api-Key) answer 401 \`invalid_api_key\` even when
one is valid. A missing or wrong key answers 401 with a
\`WWW-Authenticate: Bearer\` header. The data returned always belongs to the key's project; keys are stored only as
SHA-256 digests. The ingest key (\`sw_ing_…\`) only writes events and is refused by the read API; the API key (\`sw_api_…\`)
only reads, and is refused by ingest and by the source map upload, which takes the upload key (\`sw_upl_…\`) and
nothing else; the upload key is refused by every other route.

**Timestamps** are ISO 8601 UTC with milliseconds (\`2026-11-20T10:15:30.123Z\`). \`ip\`, \`country\`,
\`userAgent\` and \`utm\` are null when unknown.

**Ordering.** listSessions orders by lastSeenAt descending, then id descending. Events are ordered by createdAt,
ties kept in the order received.

**Event fields.** \`url\` and \`method\` (typed string) are absent when an event has none; every other field is always
present and null when it does not apply. Counters: \`errors\` counts ERROR and HTTP_ERROR events; \`slow\` counts
SLOW_REQUEST events (slow requests and slow resources); \`total\` counts all.

**Retention.** Each project keeps sessions for its retention period (default ${DEFAULT_RETENTION_DAYS} days) counted from lastSeenAt. An
expired session disappears from both operations at once (getSession answers 404) and is then deleted with its events
by a background sweep.`

export const ERROR_RULES = `**Errors.** Every error answer is JSON:
\`{"statusCode": 400, "error": "Bad Request", "code": "invalid_parameter", "message": "limit must be an integer from 1 to ${MAX_LIMIT} (got \\"0\\")", "parameter": "limit"}\`.
\`code\` is stable; branch on it. Invalid parameter values are never clamped: limit outside 1–${MAX_LIMIT} or not an integer,
offset outside 0–${MAX_OFFSET} (2^53−1), an integer not written in plain digits (0x10, 1e1, +5, 5.0), a malformed or
impossible date (2026-02-30), from/to that are not ISO 8601 with a zone (or a bare date), or from later than to all
answer 400 naming the parameter. Dates before 1970 (years 0000–9999) are valid and match no session. \`date\` overrides
from/to, but those are still validated. Unknown query parameters are ignored. Unknown routes and methods answer 404
\`route_not_found\`. An id that cannot exist (over its length bound, or holding a NUL byte) answers the 404 of any
unknown id, after the key check.`
