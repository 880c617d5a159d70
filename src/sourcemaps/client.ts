import { setTimeout as sleep } from 'node:timers/promises'
import { byteSize } from '../util/limits.ts'
import { UNAVAILABLE_RETRY_SECONDS } from '../errors.ts'
import type { StoredSourceMap } from './schema.ts'
import type { CheckedUpload } from './service.ts'

/** How often one map is sent again while the server answers that it is busy (429 or 503 with Retry-After). */
const BUSY_RETRIES = 5

/** The refusal of an upload over HTTP, with the server's own message when it sent one. */
export class UploadError extends Error {}

/**
 * Sends checked maps to a running service, one request each (POST /upload/v1/sourcemaps with the upload key), gzip
 * as they were compressed for storage. Says how far it got on `note`, since a build's maps may take a while. A
 * busy server (429/503) is waited for as its Retry-After says; any other refusal stops the run, naming the map and
 * the server's message. Maps sent before a refusal stay stored.
 */
export async function uploadOverHttp(
  endpoint: string, key: string, maps: readonly CheckedUpload[], note: (line: string) => void,
): Promise<StoredSourceMap[]> {
  const stored: StoredSourceMap[] = []
  for (const [i, map] of maps.entries()) {
    const query = new URLSearchParams({ url: map.url, file: map.file })
    if (map.release !== null) query.set('release', map.release)
    if (map.debugId !== null) query.set('debugId', map.debugId)
    const target = `${endpoint}/upload/v1/sourcemaps?${query.toString()}`
    note(`  [${i + 1}/${maps.length}] ${map.file} → ${map.url} (${byteSize(map.bytes)}, ${byteSize(map.gzipped.length)} gzipped)`)
    for (let attempt = 0; ; attempt++) {
      let res: Response
      try {
        res = await fetch(target, {
          method: 'POST', body: map.gzipped,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' },
        })
      } catch (error) {
        const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message
        throw new UploadError(`cannot reach ${endpoint} (${cause}); ${stored.length} of ${maps.length} maps were uploaded`)
      }
      const body = await res.text()
      if (res.status === 201) {
        stored.push(JSON.parse(body) as StoredSourceMap)
        break
      }
      const message = messageOf(body) ?? `HTTP ${res.status}`
      if ((res.status === 429 || res.status === 503) && attempt < BUSY_RETRIES) {
        const wait = Number(res.headers.get('retry-after')) || UNAVAILABLE_RETRY_SECONDS
        note(`    the server is busy (${message}); retrying in ${wait} s`)
        await sleep(wait * 1000)
        continue
      }
      throw new UploadError(`${map.file}: the server refused it with ${res.status}: ${message}`
        + (stored.length > 0 ? ` (${stored.length} of ${maps.length} maps were uploaded before it)` : ''))
    }
  }
  return stored
}

/** The `message` of the service's JSON error, or null when the answer is something else (a proxy's page). */
function messageOf(body: string): string | null {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message
    return typeof message === 'string' ? message : null
  } catch {
    return null
  }
}
