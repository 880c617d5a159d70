/**
 * The Sentry envelope format, read byte for byte (develop.sentry.dev, "Envelopes"):
 *
 *   Envelope = Headers { "\n" Item } [ "\n" ]     Item = Headers "\n" Payload
 *
 * Headers are one line of JSON. An item's `length` is in bytes; without it the payload runs to the next "\n"
 * or the end. Payloads are bytes (a replay recording is zlib data), so this works on a Buffer and never decodes
 * the whole body as text: a `length` counts bytes, not characters.
 */

export interface EnvelopeItem {
  /** The item header's `type`: event, replay_recording, session, … */
  type: string
  header: Record<string, unknown>
  payload: Buffer
}

export interface Envelope {
  header: Record<string, unknown>
  items: EnvelopeItem[]
  /**
   * Why reading stopped before the end, or null when the whole body was read. A truncated item or an item header
   * that is not JSON ends the envelope there: what came before is kept (GlitchTip and Relay do the same).
   */
  stopped: string | null
}

/** An envelope whose header cannot be read: nothing of it can be trusted. */
export class EnvelopeError extends Error {}

const NEWLINE = 0x0a

/** Reads an envelope. Throws EnvelopeError only when its own header is unreadable. */
export function parseEnvelope(body: Buffer): Envelope {
  const headerEnd = lineEnd(body, 0)
  const header = jsonObject(body.subarray(0, headerEnd))
  if (header === null) throw new EnvelopeError('The envelope header (its first line) must be a JSON object')
  const items: EnvelopeItem[] = []
  let pos = headerEnd + 1
  while (pos < body.length) {
    const end = lineEnd(body, pos)
    const line = body.subarray(pos, end)
    // A trailing newline, or blank lines between items, carry nothing.
    if (line.toString('latin1').trim() === '') {
      pos = end + 1
      continue
    }
    const n = items.length
    const itemHeader = jsonObject(line)
    if (itemHeader === null || typeof itemHeader.type !== 'string' || itemHeader.type === '') {
      return { header, items, stopped: `item ${n}: its header is not a JSON object with a "type"` }
    }
    const length = itemHeader.length
    const start = end + 1
    let payloadEnd: number
    if (length === undefined || length === null) {
      payloadEnd = start > body.length ? body.length : lineEnd(body, start)
    } else if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
      return { header, items, stopped: `item ${n} (${itemHeader.type}): "length" must be a whole number of bytes` }
    } else {
      payloadEnd = start + length
      if (payloadEnd > body.length) {
        return { header, items, stopped: `item ${n} (${itemHeader.type}) is truncated: ${length} bytes announced, ${Math.max(0, body.length - start)} sent` }
      }
      if (payloadEnd < body.length && body[payloadEnd] !== NEWLINE) {
        return { header, items, stopped: `item ${n} (${itemHeader.type}): its ${length} bytes are not followed by a newline` }
      }
    }
    items.push({ type: itemHeader.type, header: itemHeader, payload: body.subarray(Math.min(start, body.length), payloadEnd) })
    pos = payloadEnd + 1
  }
  return { header, items, stopped: null }
}

/** The index of the next "\n" from `from`, or the body's length. */
function lineEnd(body: Buffer, from: number): number {
  const i = body.indexOf(NEWLINE, from)
  return i === -1 ? body.length : i
}

/** The bytes as a JSON object, or null when they are not one. */
export function jsonObject(bytes: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'))
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : null
  } catch {
    return null
  }
}
