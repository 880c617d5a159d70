import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { buffer } from 'node:stream/consumers'
import { after, before, describe, it } from 'node:test'
import { fileStore } from '../../../src/recording/store/file.ts'
import { type BlobStore, StoreFull, StoreUnavailable, type StoredObject } from '../../../src/recording/store/types.ts'
import { mountTmpfs, smallDiskUnavailable } from '../../helpers/small-disk.ts'

/** Every file under `root`, relative, sorted. */
const filesUnder = (root: string) => fs.readdirSync(root, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name))).sort()

/** What a store lists. */
async function listed(store: BlobStore): Promise<StoredObject[]> {
  const objects: StoredObject[] = []
  for await (const o of store.list()) objects.push(o)
  return objects
}

describe('the file store', () => {
  let root: string
  let store: BlobStore
  before(() => {
    root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sw-file-store-')), 'recordings')
    store = fileStore(root)
  })
  after(() => { fs.rmSync(path.dirname(root), { recursive: true, force: true }) })

  it('lists nothing and reads nothing before its folder exists', async () => {
    assert.deepEqual(await listed(store), [])
    assert.equal(await store.get('p/00/none.gz'), null)
  })

  it('puts an object whole under its key, leaving no .partial file, and reads it back', async () => {
    const data = randomBytes(50_000)
    await store.put('p1/ab/one.gz', data)
    assert.deepEqual(filesUnder(root), [path.join('p1', 'ab', 'one.gz')])
    const stream = await store.get('p1/ab/one.gz')
    assert.ok(stream)
    assert.deepEqual(await buffer(stream), data)
  })

  it('a put that fails leaves no .partial file and says the store is unavailable', async () => {
    fs.mkdirSync(path.join(root, 'p1', 'cd', 'taken.gz'), { recursive: true })
    await assert.rejects(store.put('p1/cd/taken.gz', randomBytes(100)), StoreUnavailable)
    assert.deepEqual(filesUnder(path.join(root, 'p1', 'cd')), [])
    fs.rmdirSync(path.join(root, 'p1', 'cd', 'taken.gz'))
  })

  it('lists every object by its key, with its size', async () => {
    await store.put('p2/00/two.gz', Buffer.from('two'))
    const objects = (await listed(store)).map((o) => [o.key, o.bytes]).sort()
    assert.deepEqual(objects, [['p1/ab/one.gz', 50_000], ['p2/00/two.gz', 3]])
    assert.ok((await listed(store)).every((o) => o.modifiedAt > Date.now() - 60_000))
  })

  it('deletes objects, and deleting one that is gone is no error', async () => {
    await store.delete(['p2/00/two.gz', 'p9/00/never.gz'])
    await store.delete(['p2/00/two.gz'])
    assert.equal(await store.get('p2/00/two.gz'), null)
    assert.deepEqual((await listed(store)).map((o) => o.key), ['p1/ab/one.gz'])
  })

  it('tells its disk\'s free and total bytes', async () => {
    const disk = await store.disk()
    assert.ok(disk !== null && disk.free > 0 && disk.free <= disk.total, JSON.stringify(disk))
  })

  it('says when its disk is full, leaving no .partial file', { skip: smallDiskUnavailable() ?? false }, async () => {
    const disk = mountTmpfs(1)
    try {
      const small = fileStore(path.join(disk.dir, 'recordings'))
      await assert.rejects(small.put('p/00/big.gz', randomBytes(2 * 1024 * 1024)), StoreFull)
      assert.deepEqual(filesUnder(disk.dir), [])
      const left = await small.disk()
      assert.ok(left !== null && left.free >= 0 && left.free <= left.total, JSON.stringify(left))
    } finally {
      disk.unmount()
    }
  })
})
