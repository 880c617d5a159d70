import assert from 'node:assert/strict'
import net from 'node:net'
import { buffer } from 'node:stream/consumers'
import { after, before, describe, it } from 'node:test'
import { S3_REQUEST_TIMEOUT_MS } from '../../../src/recording/limits.ts'
import { s3Store } from '../../../src/recording/store/s3.ts'
import { type BlobStore, StoreUnavailable } from '../../../src/recording/store/types.ts'
import { startTestS3, type TestS3 } from '../../helpers/s3.ts'

const keysOf = async (store: BlobStore) => {
  const keys: string[] = []
  for await (const o of store.list()) keys.push(o.key)
  return keys.sort()
}

describe('the S3 store, against an S3 server', () => {
  let s3: TestS3
  before(async () => { s3 = await startTestS3('sw-store-test', 'prod/replays') })
  after(() => s3.close())

  it('puts, reads, lists and deletes objects under its prefix only', async () => {
    const other = s3Store(s3.bucket, 'staging', { endpoint: s3.endpoint, region: null, forcePathStyle: true })
    try {
      await other.put('p/00/elsewhere.gz', Buffer.from('not ours'))
      await s3.store.put('p/00/one.gz', Buffer.from('one'))
      await s3.store.put('p/01/two.gz', Buffer.from('two'))
      assert.deepEqual(await keysOf(s3.store), ['p/00/one.gz', 'p/01/two.gz'], 'keys without the prefix, no other prefix\'s')
      const stream = await s3.store.get('p/01/two.gz')
      assert.ok(stream)
      assert.equal((await buffer(stream)).toString(), 'two')
      assert.equal(await s3.store.get('p/02/none.gz'), null)
      await s3.store.delete(['p/00/one.gz', 'p/09/never.gz'])
      await s3.store.delete(['p/00/one.gz'])
      assert.deepEqual(await keysOf(s3.store), ['p/01/two.gz'])
      assert.deepEqual(await keysOf(other), ['p/00/elsewhere.gz'])
      assert.equal(await s3.store.disk(), null, 'a bucket has no disk of its own')
    } finally {
      await other.close()
    }
  })

  it('is unavailable at once while its server is down, and available again after', async () => {
    await s3.stop()
    try {
      const started = Date.now()
      await assert.rejects(s3.store.put('p/03/down.gz', Buffer.from('x')), StoreUnavailable)
      await assert.rejects(s3.store.get('p/01/two.gz'), StoreUnavailable)
      await assert.rejects(s3.store.delete(['p/01/two.gz']), StoreUnavailable)
      await assert.rejects(keysOf(s3.store), StoreUnavailable)
      assert.ok(Date.now() - started < S3_REQUEST_TIMEOUT_MS, `refused connections fail fast (${Date.now() - started} ms)`)
    } finally {
      await s3.start()
    }
    assert.deepEqual(await keysOf(s3.store), ['p/01/two.gz'])
  })

  // Bounded, so that a store that waits for ever fails the test rather than hanging it.
  it('is unavailable within its request timeouts when the server takes the connection but never answers', { timeout: 2 * S3_REQUEST_TIMEOUT_MS + 5000 }, async () => {
    const sockets = new Set<net.Socket>()
    const hung = net.createServer((socket) => { sockets.add(socket) })
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve))
    const store = s3Store('sw-store-test', '', { endpoint: `http://127.0.0.1:${(hung.address() as net.AddressInfo).port}`, region: null, forcePathStyle: true })
    try {
      const started = Date.now()
      await assert.rejects(store.put('p/00/hung.gz', Buffer.from('x')), StoreUnavailable)
      // Two attempts, each bounded by the request timeout.
      assert.ok(Date.now() - started < 2 * S3_REQUEST_TIMEOUT_MS + 3000, `${Date.now() - started} ms`)
    } finally {
      await store.close()
      for (const socket of sockets) socket.destroy()
      hung.close()
    }
  })
})
