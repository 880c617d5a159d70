import assert from 'node:assert/strict'
import path from 'node:path'
import { describe, it } from 'node:test'
import { parseStoreUrl } from '../../../src/recording/store/url.ts'

describe('parseStoreUrl', () => {
  const resolve = (p: string) => path.resolve('/srv/sw', p)
  const parse = (raw: string) => parseStoreUrl(raw, resolve)

  it('reads database:, with or without its colon', () => {
    assert.deepEqual(parse('database:'), { kind: 'database', url: 'database:' })
    assert.deepEqual(parse('database'), { kind: 'database', url: 'database:' })
  })

  it('reads a folder as file:PATH or file:///PATH, a relative one against the working directory', () => {
    assert.deepEqual(parse('file:/var/lib/sw/recordings'), { kind: 'file', url: 'file:/var/lib/sw/recordings', root: '/var/lib/sw/recordings' })
    assert.deepEqual(parse('file:///var/lib/sw/recordings'), { kind: 'file', url: 'file:/var/lib/sw/recordings', root: '/var/lib/sw/recordings' })
    assert.deepEqual(parse('file:data/recordings'), { kind: 'file', url: 'file:/srv/sw/data/recordings', root: '/srv/sw/data/recordings' })
  })

  it('reads a bucket and a prefix without its outer slashes, normalized in the URL', () => {
    assert.deepEqual(parse('s3://sw-recordings'), { kind: 's3', url: 's3://sw-recordings', bucket: 'sw-recordings', prefix: '' })
    assert.deepEqual(parse('s3://sw-recordings/'), { kind: 's3', url: 's3://sw-recordings', bucket: 'sw-recordings', prefix: '' })
    assert.deepEqual(parse('s3://my.bucket.1//prod/replays/'), { kind: 's3', url: 's3://my.bucket.1/prod/replays', bucket: 'my.bucket.1', prefix: 'prod/replays' })
  })

  it('refuses a bucket name S3 would refuse, naming it', () => {
    for (const bucket of ['ab', 'Recordings', '-recordings', 'recordings-', 'rec_ordings', 'a'.repeat(64)]) {
      const problem = parse(`s3://${bucket}/x`)
      assert.ok(typeof problem === 'string', bucket)
      assert.match(problem, new RegExp(`the bucket "${bucket}" is not an S3 bucket name`))
    }
    assert.equal(typeof parse(`s3://${'a'.repeat(63)}`), 'object', '63 characters is the most S3 allows')
  })

  it('refuses anything else, saying what is accepted', () => {
    for (const raw of ['', 'file:', 's3://', 's3:/bucket', 'http://minio:9000/bucket', '/var/lib/recordings', 'gs://bucket']) {
      assert.equal(parse(raw), 'must be database:, file:PATH or s3://BUCKET/PREFIX', raw)
    }
  })
})
