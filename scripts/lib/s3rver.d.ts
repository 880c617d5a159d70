/** What this project uses of s3rver, which ships no types: a test S3 server over HTTP, objects kept in a folder. */
declare module 's3rver' {
  interface S3rverOptions {
    port?: number
    address?: string
    silent?: boolean
    directory: string
    configureBuckets?: { name: string }[]
  }
  export default class S3rver {
    constructor(options: S3rverOptions)
    run(): Promise<{ address: string; port: number }>
    close(): Promise<void>
  }
}
