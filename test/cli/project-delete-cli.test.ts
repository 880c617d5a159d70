import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { cli } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts'
import { testEngines } from '../helpers/engines.ts'
import { chunkUpload, filesUnder, rrwebEvents } from '../helpers/recording.ts'

for (const engine of testEngines()) {describe(`sessionwatch project delete [${engine}]`, () => {
  let dir: string
  let database: TestDatabase
  let env: Record<string, string>
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-project-delete-cli-'))
    database = await createTestDatabase(engine)
    env = { DATABASE_URL: database.url, RECORDINGS_URL: `file:${path.join(dir, 'recordings')}` }
  })
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true })
    await database.cleanup()
  })

  /** A project made and filled through the CLI, with `visits` imported visits of two recording chunks each. */
  async function project(name: string, visits: number): Promise<string> {
    const created = await cli(['project', 'create', '--name', name, '--domain', 'shop.example', '--json'], env)
    assert.equal(created.code, 0, created.stderr)
    const id = (JSON.parse(created.stdout) as { id: string }).id
    const t = new Date(Date.now() - 60_000).toISOString()
    const lines = Array.from({ length: visits }, (_, v) => JSON.stringify({
      id: `${name}-${v}`, sessionKey: `${name}-key-${v}`, startedAt: t, lastSeenAt: t, events: [{ id: 'e1', type: 'CLICK', createdAt: t, message: 'go' }],
      recordingChunks: [0, 1].map((c) => ({ ...chunkUpload(`c${c}`, rrwebEvents(Date.parse(t), 2, `${name} ${v} ${c}`)), startedAt: t })),
    }))
    const imported = await cli(['import', '--project', id, '-'], env, `${lines.join('\n')}\n`)
    assert.equal(imported.code, 0, imported.stderr)
    return id
  }
  const projectIds = async () => (JSON.parse((await cli(['project', 'list', '--json'], env)).stdout) as { id: string }[]).map((p) => p.id)

  it('refuses without --yes saying what would go, deletes with it, and fails on an unknown project', async () => {
    const doomed = await project('doomed', 3)
    const kept = await project('kept', 1)
    assert.equal(filesUnder(path.join(dir, 'recordings', doomed)), 6)

    const refused = await cli(['project', 'delete', '--project', doomed], env)
    assert.equal(refused.code, 2)
    assert.match(refused.stderr, new RegExp(`would delete project ${doomed} \\(doomed, shop.example\\) with its 3 visits.*Add --yes`))
    assert.deepEqual((await projectIds()).sort(), [doomed, kept].sort(), 'nothing is deleted without --yes')

    const deleted = await cli(['project', 'delete', '--project', doomed, '--yes', '--json'], env)
    assert.equal(deleted.code, 0, deleted.stderr)
    assert.deepEqual(JSON.parse(deleted.stdout), { id: doomed, visits: 3, objects: 6 })
    assert.match(deleted.stderr, /^deleted 3 visits…$/m)
    assert.deepEqual(await projectIds(), [kept])
    assert.equal(filesUnder(path.join(dir, 'recordings', doomed)), 0)
    assert.equal(filesUnder(path.join(dir, 'recordings', kept)), 2)

    const again = await cli(['project', 'delete', '--project', doomed, '--yes'], env)
    assert.equal(again.code, 1)
    assert.match(again.stderr, new RegExp(`No project with id "${doomed}"`))
    const missing = await cli(['project', 'delete', '--yes'], env)
    assert.equal(missing.code, 2)
    assert.match(missing.stderr, /--project is required/)

    const plain = await cli(['project', 'delete', '--project', kept, '--yes'], env)
    assert.equal(plain.code, 0, plain.stderr)
    assert.equal(plain.stdout, `deleted project ${kept} (kept): 1 visits, 2 recording objects; its keys no longer work\n`)
    assert.deepEqual(await projectIds(), [])
  })
})}
