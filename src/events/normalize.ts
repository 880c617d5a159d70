import { TEXT_LIMITS } from '../contract/limits.ts'
import { scrub } from '../../common/scrub.ts'
import { limitText } from './text.ts'
import type { EventInput, EventRecord, ResolvedFrame, TextField } from '../contract/index.ts'

/**
 * The one place event text is bounded and scrubbed, for ingest (our SDK's and Sentry's) and import alike: every text
 * field goes through common/scrub.ts's one pass (secrets by the built-in list and the project's own `maskFields`,
 * Bearer and Basic credentials, card numbers) before it is truncated: a cut JSON body no longer parses, and a cut
 * card number no longer passes Luhn yet is still half readable. Running it twice changes nothing.
 */
export function normalizeEvent(e: EventInput, maskFields: readonly string[] = []): EventRecord {
  const text = (field: TextField, value: string | null | undefined) => {
    if (value == null) return null
    // The scrub pass reads twice what is kept, never more: a secret or card number cut at the limit is still seen
    // whole, and a 1 MiB body costs what 2 × its limit does (the pass is linear, but ~50 ms a hostile MiB).
    const head = value.length > 2 * TEXT_LIMITS[field] ? value.slice(0, 2 * TEXT_LIMITS[field]) : value
    return limitText(field, scrub(head, maskFields), value.length - head.length)
  }
  return {
    id: e.id,
    type: e.type,
    createdAt: e.createdAt,
    url: text('url', e.url || null),
    method: limitText('method', e.method ? e.method.toUpperCase() : null),
    message: text('message', e.message),
    stack: text('stack', e.stack),
    statusCode: e.statusCode ?? null,
    durationMs: e.durationMs ?? null,
    reqBody: text('reqBody', e.reqBody),
    resBody: text('resBody', e.resBody),
    fingerprint: text('fingerprint', e.fingerprint),
    ...(e.frames != null && { frames: e.frames.map((f) => scrubFrame(f, maskFields)) }),
  }
}

/** An SDK's frame with its file (a URL may carry a token) and its source lines (code may hold a key) scrubbed. */
function scrubFrame(frame: ResolvedFrame, maskFields: readonly string[]): ResolvedFrame {
  const clean = (value: string) => scrub(value, maskFields)
  const { file, context } = frame
  return {
    ...frame,
    file: file === null ? null : clean(file),
    context: context === null ? null : { pre: context.pre.map(clean), line: clean(context.line), post: context.post.map(clean) },
  }
}
