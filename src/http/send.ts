import type { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { MAX_CHUNK_JSON_BYTES, MAX_REQUEST_INFLATED_BYTES } from '../contract/limits.ts'
import { inflate, InflateBudget } from './inflate.ts'

/** An answer already serialized by the route's response schemas (getSession's, whole or streamed): sent as it is. */
export function sendJson(reply: FastifyReply, answer: Buffer | Readable): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(answer)
}

/**
 * `before`, the items with a comma between each two, and `after`, written into one UTF-8 buffer. Joined into a string
 * instead, a 60 KB getSession answer cost the service 40 % more CPU on PostgreSQL: the string is built, then encoded
 * again to count its bytes and to write it; a string over 128 KiB V8 also keeps as a large object.
 */
export function joinList(before: string, items: readonly string[], after: string): Buffer {
  let bytes = Buffer.byteLength(before) + Buffer.byteLength(after) + Math.max(items.length - 1, 0)
  for (const item of items) bytes += Buffer.byteLength(item)
  const buffer = Buffer.allocUnsafe(bytes)
  let offset = buffer.write(before)
  for (const [i, item] of items.entries()) {
    if (i > 0) offset += buffer.write(',', offset)
    offset += buffer.write(item, offset)
  }
  buffer.write(after, offset)
  return buffer
}

/**
 * Sends stored gzip-compressed JSON that never changes: as is when the client takes gzip, inflated
 * otherwise, within the bounds of any inflation (a chunk stored before they held may be beyond them: 413, and
 * the client can take it compressed); privately cacheable for a day.
 */
export async function sendGzippedJson(request: FastifyRequest, reply: FastifyReply, stored: Buffer | Readable): Promise<FastifyReply> {
  void reply.type('application/json; charset=utf-8').header('Vary', 'Accept-Encoding')
    .header('Cache-Control', 'private, max-age=86400')
  // Streamed from its store as it is; inflating needs it whole (a chunk is bounded by RECORDING_MAX_CHUNK_BYTES).
  if (acceptsGzip(request.headers['accept-encoding'])) return reply.header('Content-Encoding', 'gzip').send(stored)
  const data = Buffer.isBuffer(stored) ? stored : await buffer(stored)
  const limits = {
    maxBytes: MAX_CHUNK_JSON_BYTES, budget: new InflateBudget(MAX_REQUEST_INFLATED_BYTES), what: 'The stored data',
    outcome: 'ask for it with Accept-Encoding: gzip',
  }
  return reply.send(await inflate(data, 'gzip', limits))
}

/** Whether an Accept-Encoding header allows gzip (and does not refuse it with q=0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false
  return header.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    if (name !== 'gzip' && name !== '*') return false
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    return q === undefined || Number(q) > 0
  })
}
