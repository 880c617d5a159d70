import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import { byteSize } from '../util/limits.ts'
import { AppError, invalidBody } from '../errors.ts'

/** An upload's body as received: the map's bytes, uncompressed, in a temporary file of its own directory. */
export interface ReceivedFile {
  dir: string
  file: string
  bytes: number
}

/** Passes chunks on while counting them, failing with `tooLarge` as soon as more than `max` bytes went by. */
function counter(max: number, tooLarge: () => AppError): Transform & { bytes: number } {
  const t = Object.assign(new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      t.bytes += chunk.length
      if (t.bytes > max) callback(tooLarge())
      else callback(null, chunk)
    },
  }), { bytes: 0 })
  return t
}

/**
 * Streams an upload's body to a temporary file as it arrives, inflating it when it came gzip-compressed, and
 * counting bytes both as sent and as inflated: past `max` either way it stops at once with 413, so neither a slow
 * upload nor a gzip bomb is ever held in memory. The caller removes the directory (removeReceived).
 */
export async function receiveToFile(body: Readable, encoding: string | undefined, max: number): Promise<ReceivedFile> {
  const coding = encoding?.trim().toLowerCase() ?? 'identity'
  const gzip = coding === 'gzip' || coding === 'x-gzip'
  if (!gzip && coding !== 'identity' && coding !== '') {
    throw new AppError(415, 'unsupported_media_type',
      `Content-Encoding ${JSON.stringify(encoding)} is not accepted: send the map as is, or gzip-compressed with Content-Encoding: gzip`)
  }
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'sessionwatch-upload-'))
  const file = path.join(dir, 'map')
  const sent = counter(max, () => new AppError(413, 'payload_too_large', `The source map is over ${byteSize(max)} as sent, the largest accepted`))
  const kept = counter(max, () => new AppError(413, 'payload_too_large', `The source map inflates to more than ${byteSize(max)}, the largest accepted`))
  try {
    await pipeline([body, sent, ...(gzip ? [createGunzip()] : []), kept, fs.createWriteStream(file)])
  } catch (error) {
    await removeReceived({ dir })
    if (error instanceof AppError) throw error
    if (gzip && /^Z_/.test(String((error as { code?: unknown }).code))) {
      throw invalidBody(`The body is not gzip, though Content-Encoding says so (${(error as Error).message})`, 'body')
    }
    throw error
  }
  return { dir, file, bytes: kept.bytes }
}

/** Removes a received upload's directory; nothing when it is gone already. */
export async function removeReceived(received: Pick<ReceivedFile, 'dir'>): Promise<void> {
  await fs.promises.rm(received.dir, { recursive: true, force: true })
}
