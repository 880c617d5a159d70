import fs from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { s3Store } from '../../src/recording/store/s3.ts'
import type { BlobStore } from '../../src/recording/store/types.ts'

/** The part of s3rver (an S3 server over a folder, untyped) the tests use. */
interface S3rver {
  run(): Promise<AddressInfo>
  close(): Promise<void>
  httpServer?: Server
}
type S3rverOptions = { address: string; port: number; silent: boolean; directory: string; configureBuckets: { name: string; configs: never[] }[] }
const S3rverServer = createRequire(import.meta.url)('s3rver') as new (options: S3rverOptions) => S3rver

/** s3rver's fixed credentials: the AWS SDK's chain finds them in the environment, as a deployment's would be found. */
const ACCESS_KEY = 'S3RVER'

export interface TestS3 {
  endpoint: string
  bucket: string
  prefix: string
  /** The settings for startTestApp: RECORDINGS_URL=s3://bucket/prefix, S3_ENDPOINT, S3_FORCE_PATH_STYLE. */
  env: Record<string, string>
  /** A client of the bucket, as the service opens it. */
  store: BlobStore
  /** Stops the server, dropping open connections: an outage. */
  stop(): Promise<void>
  /** Starts it again on the same port and folder, with what it held. */
  start(): Promise<void>
  /** Objects under the prefix. */
  countObjects(): Promise<number>
  /** Stops the server and deletes its folder. */
  close(): Promise<void>
}

/** An S3 server of its own on a free local port, with one empty bucket, for one test file or block. */
export async function startTestS3(bucket = 'recordings', prefix = 'sw'): Promise<TestS3> {
  process.env.AWS_ACCESS_KEY_ID ??= ACCESS_KEY
  process.env.AWS_SECRET_ACCESS_KEY ??= ACCESS_KEY
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-s3-'))
  let port = 0
  let server: S3rver | null = null
  const start = async () => {
    // A new instance each time: s3rver closes its logger with its server.
    const next = new S3rverServer({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] })
    port = (await next.run()).port
    server = next
  }
  const stop = async () => {
    const running = server
    server = null
    if (!running) return
    running.httpServer?.closeAllConnections()
    await running.close()
  }
  await start()
  const endpoint = `http://127.0.0.1:${port}`
  const store = s3Store(bucket, prefix, { endpoint, region: null, forcePathStyle: true })
  return {
    endpoint, bucket, prefix, store, start, stop,
    env: {
      RECORDINGS_URL: `s3://${bucket}/${prefix}`, S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: 'true',
      // For a service in a process of its own (the bench), which gets no more of the environment than it is given.
      AWS_ACCESS_KEY_ID: ACCESS_KEY, AWS_SECRET_ACCESS_KEY: ACCESS_KEY,
    },
    async countObjects() {
      let n = 0
      for await (const _ of store.list()) n++
      return n
    },
    async close() {
      await store.close()
      await stop()
      fs.rmSync(directory, { recursive: true, force: true })
    },
  }
}
