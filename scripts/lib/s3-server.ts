import S3rver from 's3rver'

/** s3rver's own credentials: the only ones it accepts unless configured otherwise. */
export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } as const

export interface TestS3 {
  endpoint: string
  port: number
  /** The settings a service needs to keep recordings in `bucket/prefix` of this server, credentials included. */
  env(prefix?: string): Record<string, string>
  stop(): Promise<void>
  /** Starts it again on the same port and folder (after stop): an S3 outage that ends. */
  start(): Promise<void>
}

/**
 * A real S3-protocol server (s3rver, from npm) on the loopback, objects kept in `directory`, with `bucket` made: what
 * the tests and the bench keep recordings in, as they run PostgreSQL (scripts/lib/postgres-server.ts).
 */
export async function startTestS3(directory: string, bucket: string, port = 0): Promise<TestS3> {
  const make = (p: number) => new S3rver({ port: p, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] })
  let server = make(port)
  const bound = (await server.run()).port
  const endpoint = `http://127.0.0.1:${bound}`
  return {
    endpoint,
    port: bound,
    env: (prefix = 'recordings') => ({
      RECORDINGS_URL: `s3://${bucket}/${prefix}`, S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: 'true', S3_REGION: 'us-east-1', ...S3RVER_CREDENTIALS,
    }),
    stop: () => server.close(),
    start: async () => {
      server = make(bound)
      await server.run()
    },
  }
}
