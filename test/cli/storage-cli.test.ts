import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { cli } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts'
import { testEngines } from '../helpers/engines.ts'
import { chunkUpload, rrwebEvents } from '../helpers/recording.ts'

/** Every file under a folder, as paths relative to it. */
function filesUnder(root: string): string[] {
  if (!fs.existsSync(root)) return []
  return (fs.readdirSync(root, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name))).sort()
}

for (const engine of testEngines()) {describe(`sessionwatch storage [${engine}]`, () => {
  let dir: string
  let database: TestDatabase
  let env: Record<string, string>
  let projectId: string
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-storage-cli-'))
    database = await createTestDatabase(engine)
    env = { DATABASE_URL: database.url, RECORDINGS_URL: `file:${path.join(dir, 'a')}` }
    const created = await cli(['project', 'create', '--name', 'Shop', '--domain', 'shop.example', '--json'], env)
    projectId = (JSON.parse(created.stdout) as { id: string }).id
    const t = new Date(Date.now() - 60_000).toISOString()
    const line = (id: string) => JSON.stringify({
      id, sessionKey: `${id}-key`, startedAt: t, lastSeenAt: t, events: [{ id: 'e1', type: 'CLICK', createdAt: t, message: 'go' }],
      recordingChunks: [0, 1].map((c) => ({ ...chunkUpload(`c${c}`, rrwebEvents(Date.parse(t), 2, `${id} ${c}`)), startedAt: t })),
    })
    const imported = await cli(['import', '--project', projectId, '-'], env, `${line('cli-a')}\n${line('cli-b')}\n`)
    assert.equal(imported.code, 0, imported.stderr)
    assert.equal(filesUnder(path.join(dir, 'a')).length, 4)
  })
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true })
    await database.cleanup()
  })

  it('check exits 0 on a clean store, 1 listing an old orphan, and --fix removes it', async () => {
    const clean = await cli(['storage', 'check'], env)
    assert.equal(clean.code, 0, clean.stderr)
    assert.match(clean.stdout, /^orphans: 0 objects/m)
    const orphan = path.join(dir, 'a', projectId, 'ff', 'left-over.gz')
    const young = path.join(dir, 'a', projectId, 'ff', 'being-written.gz')
    fs.mkdirSync(path.dirname(orphan), { recursive: true })
    fs.writeFileSync(orphan, 'lost')
    fs.writeFileSync(young, 'new')
    const hourAgo = Date.now() / 1000 - 3600
    fs.utimesSync(orphan, hourAgo, hourAgo)
    const found = await cli(['storage', 'check'], env)
    assert.equal(found.code, 1, found.stderr)
    assert.match(found.stdout, new RegExp(`^orphan {2}file:${dir}/a {2}${projectId}/ff/left-over.gz {2}4 bytes$`, 'm'))
    assert.match(found.stdout, /^young: 1 /m)
    assert.match(found.stdout, /storage check --fix/)
    const asJson = await cli(['storage', 'check', '--json'], env)
    assert.equal(asJson.code, 1)
    assert.deepEqual(JSON.parse(asJson.stdout), {
      orphans: [{ store: `file:${path.join(dir, 'a')}`, key: `${projectId}/ff/left-over.gz`, bytes: 4 }], missing: [], young: 1, fixed: false,
    })
    const fixed = await cli(['storage', 'check', '--fix'], env)
    assert.equal(fixed.code, 0, fixed.stderr)
    assert.match(fixed.stdout, /^orphans: 1 objects .*: removed$/m)
    assert.ok(!fs.existsSync(orphan) && fs.existsSync(young), 'the orphan is gone, the young object stays')
    fs.rmSync(young)
    assert.equal((await cli(['storage', 'check'], env)).code, 0)
  })

  it('check exits 1 on a chunk whose object is missing, and --fix marks it dropped', async () => {
    const [victim] = filesUnder(path.join(dir, 'a'))
    fs.rmSync(path.join(dir, 'a', victim ?? ''))
    const found = await cli(['storage', 'check', '--json'], env)
    assert.equal(found.code, 1, found.stderr)
    const report = JSON.parse(found.stdout) as { missing: { project: string }[] }
    assert.deepEqual(report.missing.map((m) => m.project), [projectId])
    const fixed = await cli(['storage', 'check', '--fix'], env)
    assert.equal(fixed.code, 0, fixed.stderr)
    assert.match(fixed.stdout, /^missing: 1 chunks .*marked dropped \(missing\), so the API no longer lists them$/m)
    assert.equal((await cli(['storage', 'check'], env)).code, 0)
    const chunks = (await cli(['export', '--project', projectId], env)).stdout.trim().split('\n')
      .map((l) => (JSON.parse(l) as { recordingChunks?: unknown[] }).recordingChunks?.length ?? 0)
    assert.equal(chunks.reduce((a, b) => a + b, 0), 3, 'the export carries the three chunks left')
  })

  it('migrate refuses the store RECORDINGS_URL already names, and a bad URL, as usage errors', async () => {
    const same = await cli(['storage', 'migrate', '--to', `file:${path.join(dir, 'a')}`], env)
    assert.equal(same.code, 2)
    assert.match(same.stderr, /RECORDINGS_URL already names file:/)
    const bad = await cli(['storage', 'migrate', '--to', 'ftp://x'], env)
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /--to must be database:, file:PATH or s3:\/\/BUCKET\/PREFIX/)
    assert.equal((await cli(['storage', 'frobnicate'], env)).code, 2)
  })

  it('migrate moves every chunk to the new store and says what to set and run next', async () => {
    const b = path.join(dir, 'b')
    const exported = (await cli(['export', '--project', projectId], env)).stdout
    const moved = await cli(['storage', 'migrate', '--to', `file:${b}`], env)
    assert.equal(moved.code, 0, moved.stderr)
    assert.match(moved.stdout, new RegExp(`^moved 3 chunks \\(0\\.0 MB\\) from file:${dir}/a to file:${b}$`, 'm'))
    assert.match(moved.stdout, new RegExp(`Now set RECORDINGS_URL=file:${b} and restart the service`))
    assert.match(moved.stdout, new RegExp(`run RECORDINGS_URL=file:${dir}/a sessionwatch storage migrate --to file:${b} once more`))
    assert.deepEqual(filesUnder(path.join(dir, 'a')), [], 'the old store is emptied')
    assert.equal(filesUnder(b).length, 3)
    const after = { ...env, RECORDINGS_URL: `file:${b}` }
    assert.equal((await cli(['storage', 'check'], after)).code, 0)
    assert.equal((await cli(['export', '--project', projectId], after)).stdout, exported, 'the export, chunk bytes and all, is the same')
    const back = await cli(['storage', 'migrate', '--to', 'database:', '--json'], after)
    assert.equal(back.code, 0, back.stderr)
    const report = JSON.parse(back.stdout) as Record<string, unknown>
    assert.deepEqual({ ...report, bytes: null }, { from: `file:${b}`, to: 'database:', moved: 3, bytes: null, gone: 0, missing: 0, left: 0 })
    assert.deepEqual(filesUnder(b), [])
    assert.equal((await cli(['export', '--project', projectId], after)).stdout, exported)
  })
})}
