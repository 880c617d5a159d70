import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3'
import type { Readable } from 'node:stream'
import { S3_DELETE_BATCH, S3_REQUEST_TIMEOUT_MS } from '../limits.ts'
import { type BlobStore, StoreUnavailable, type StoredObject } from './types.ts'

export interface S3Settings {
  /** S3_ENDPOINT: an S3-compatible server (MinIO, R2, SeaweedFS); null is AWS itself. */
  readonly endpoint: string | null
  /** S3_REGION; null lets the SDK's chain decide (AWS_REGION, the profile), and `us-east-1` where it finds none. */
  readonly region: string | null
  /** S3_FORCE_PATH_STYLE: `endpoint/bucket/key` rather than `bucket.endpoint/key`, as most self-hosted servers need. */
  readonly forcePathStyle: boolean
}

/**
 * Chunks as objects of a bucket (RECORDINGS_URL `s3://BUCKET/PREFIX`), credentials from the AWS SDK's usual chain
 * (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile, an instance role). A PutObject that S3 answered is durable.
 * Checksums are sent and checked only where S3 requires them: S3-compatible servers differ in the newer ones.
 */
export function s3Store(bucket: string, prefix: string, settings: S3Settings): BlobStore {
  const url = `s3://${bucket}${prefix === '' ? '' : `/${prefix}`}`
  const client = new S3Client({
    ...(settings.endpoint !== null && { endpoint: settings.endpoint }),
    region: settings.region ?? 'us-east-1',
    forcePathStyle: settings.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // An outage should answer 503 within seconds, not after the SDK's long default retries.
    maxAttempts: 2,
    // throwOnRequestTimeout: without it the SDK only logs a request past its timeout and waits on, for ever on a hung server.
    requestHandler: { connectionTimeout: S3_REQUEST_TIMEOUT_MS, requestTimeout: S3_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true },
  })
  const full = (key: string) => (prefix === '' ? key : `${prefix}/${key}`)
  const unavailable = (error: unknown): never => { throw new StoreUnavailable(url, error) }
  return {
    url,
    async put(key, data) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: full(key), Body: data, ContentType: 'application/gzip' })).catch(unavailable)
    },
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: full(key) }))
        return (out.Body as Readable | undefined) ?? null
      } catch (error) {
        if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) return null
        return unavailable(error)
      }
    },
    async delete(keys) {
      for (let i = 0; i < keys.length; i += S3_DELETE_BATCH) {
        const batch = keys.slice(i, i + S3_DELETE_BATCH)
        const out = await client.send(new DeleteObjectsCommand({
          Bucket: bucket, Delete: { Objects: batch.map((k) => ({ Key: full(k) })), Quiet: true },
        })).catch(unavailable)
        const failed = out.Errors?.filter((e) => e.Code !== 'NoSuchKey') ?? []
        if (failed.length > 0) unavailable(new Error(`${failed.length} objects not deleted: ${failed[0]?.Code ?? ''} ${failed[0]?.Message ?? ''}`))
      }
    },
    async *list(): AsyncIterable<StoredObject> {
      let token: string | undefined
      do {
        const page = await client.send(new ListObjectsV2Command({
          Bucket: bucket, ...(prefix !== '' && { Prefix: `${prefix}/` }), ...(token !== undefined && { ContinuationToken: token }),
        })).catch(unavailable)
        for (const o of page.Contents ?? []) {
          if (o.Key === undefined) continue
          yield { key: prefix === '' ? o.Key : o.Key.slice(prefix.length + 1), bytes: o.Size ?? 0, modifiedAt: o.LastModified?.getTime() ?? 0 }
        }
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined
      } while (token !== undefined)
    },
    disk: () => Promise.resolve(null),
    close: () => { client.destroy(); return Promise.resolve() },
  }
}
