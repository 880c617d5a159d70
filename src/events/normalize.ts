import { maskCards, maskSecrets } from '../../common/text.ts'
import { limitText } from './text.ts'
import type { EventInput, EventRecord, TextField } from './schema.ts'

/**
 * The one place event text is bounded and scrubbed, for ingest and import alike. Card numbers are
 * masked in every visitor text field, and password-like values in bodies, with the project's own
 * `maskFields` besides the built-in names. Both happen before truncating: a cut JSON body no longer
 * parses, and a cut card number no longer passes Luhn yet is still half readable. Running it twice
 * changes nothing.
 */
export function normalizeEvent(e: EventInput, maskFields: readonly string[] = []): EventRecord {
  // Most projects name no field: an empty list is the built-in masking alone, at no extra cost per key.
  const text = (field: TextField, value: string | null | undefined, secrets = false) =>
    (value == null ? null : limitText(field, maskCards(secrets ? maskSecrets(value, maskFields) : value)))
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
    reqBody: text('reqBody', e.reqBody, true),
    resBody: text('resBody', e.resBody, true),
    fingerprint: text('fingerprint', e.fingerprint),
  }
}
