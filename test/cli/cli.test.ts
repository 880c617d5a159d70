import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { cli, cliProcess } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts'
import { testEngines } from '../helpers/engines.ts'
import { chunkUpload, rrwebEvents } from '../helpers/recording.ts'

for (const engine of testEngines()) {describe(`sessionwatch CLI [${engine}]`, () => {
  let dir: string
  let database: TestDatabase
  let env: Record<string, string>
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-cli-'))
    database = await createTestDatabase(engine)
    env = { DATABASE_URL: database.url }
  })
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true })
    await database.cleanup()
  })

  it('project create --json prints id, name, domain, apiKey, uploadKey, ingestKey and the Sentry DSN', async () => {
    const res = await cli(['project', 'create', '--name', 'Shop', '--domain', 'shop.example', '--retention-days', '7', '--json'], env)
    assert.equal(res.code, 0, res.stderr)
    const created = JSON.parse(res.stdout) as Record<string, string>
    assert.deepEqual(Object.keys(created), ['id', 'name', 'domain', 'apiKey', 'uploadKey', 'ingestKey', 'sentryProjectId', 'dsnKey', 'dsn'])
    // The Sentry SDK's DSN parser: a word-only key and a numeric project id (here on localhost:PORT, PUBLIC_URL unset).
    assert.match(created.dsn ?? '', /^http:\/\/\w+@localhost:8080\/\d+$/)
    assert.equal(created.dsn, `http://${created.dsnKey}@localhost:8080/${created.sentryProjectId}`)
    assert.match(created.apiKey ?? '', /^sw_api_/)
    assert.match(created.uploadKey ?? '', /^sw_upl_[\w-]{43}$/)
    assert.match(created.ingestKey ?? '', /^sw_ing_/)
    const list = await cli(['project', 'list', '--json'], env)
    const projects = JSON.parse(list.stdout) as Record<string, unknown>[]
    assert.equal(projects.length, 1)
    assert.equal(projects[0]?.retentionDays, 7)
    assert.equal(projects[0].uploadKeyPrefix, String(created.uploadKey).slice(0, 13))
    assert.ok(!list.stdout.includes(created.apiKey ?? '-'), 'the API key is never listed')
    assert.ok(!list.stdout.includes(created.uploadKey ?? '-'), 'nor the upload key')
    const text = await cli(['project', 'create', '--name', 'Shop 2', '--domain', 'shop.example'], env)
    assert.match(text.stdout, /Upload key \(secret, source map uploads only; shown only now\): sw_upl_/)
  })

  it('gives each project its own DSN number, on PUBLIC_URL with its path when set', async () => {
    const make = async (name: string, extra: Record<string, string> = {}) =>
      JSON.parse((await cli(['project', 'create', '--name', name, '--domain', 'n.example', '--json'], { ...env, ...extra })).stdout) as Record<string, string | number>
    const a = await make('N1')
    const b = await make('N2', { PUBLIC_URL: 'https://sw.example.com/tools/sw' })
    assert.equal(b.sentryProjectId, Number(a.sentryProjectId) + 1)
    assert.equal(b.dsn, `https://${b.dsnKey}@sw.example.com/tools/sw/${b.sentryProjectId}`)
    const list = JSON.parse((await cli(['project', 'list', '--json'], env)).stdout) as { id: string; dsn: string }[]
    assert.equal(list.find((p) => p.id === a.id)?.dsn, a.dsn, 'project list --json carries each DSN')
  })

  it('refuses bad project fields and bad usage with clear messages', async () => {
    const noDomain = await cli(['project', 'create', '--name', 'X'], env)
    assert.equal(noDomain.code, 2)
    assert.match(noDomain.stderr, /--domain is required/)
    const badDays = await cli(['project', 'create', '--name', 'X', '--domain', 'x.example', '--retention-days', '0'], env)
    assert.equal(badDays.code, 1)
    assert.match(badDays.stderr, /retention days must be a whole number from 1/)
    const unknown = await cli(['frobnicate'], env)
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /unknown command "frobnicate"/)
    const flag = await cli(['project', 'list', '--nope'], env)
    assert.equal(flag.code, 2)
  })

  it('rotates keys: prints new ones, and a wrong project id fails', async () => {
    const created = JSON.parse((await cli(['project', 'create', '--name', 'R', '--domain', 'r.example', '--json'], env)).stdout) as Record<string, string>
    const rotated = await cli(['project', 'rotate-key', '--project', created.id ?? '', '--ingest', '--json'], env)
    assert.equal(rotated.code, 0, rotated.stderr)
    const keys = JSON.parse(rotated.stdout) as Record<string, string>
    assert.notEqual(keys.apiKey, created.apiKey)
    assert.notEqual(keys.ingestKey, created.ingestKey)
    assert.notEqual(keys.dsnKey, created.dsnKey, 'rotating the ingest key rotates the DSN key')
    assert.equal(keys.sentryProjectId, created.sentryProjectId, 'the DSN keeps its project id')
    assert.match(rotated.stdout, /"dsn":"http:\/\/\w+@localhost:8080\/\d+"/)
    const apiOnly = JSON.parse((await cli(['project', 'rotate-key', '--project', created.id ?? '', '--json'], env)).stdout) as Record<string, string>
    assert.equal(apiOnly.dsnKey, keys.dsnKey, 'rotating the API key alone keeps the DSN')
    assert.equal(apiOnly.uploadKey, undefined, 'the upload key stays')
    const upload = await cli(['project', 'rotate-key', '--project', created.id ?? '', '--upload', '--json'], env)
    assert.equal(upload.code, 0, upload.stderr)
    const newUpload = JSON.parse(upload.stdout) as Record<string, string>
    assert.deepEqual(Object.keys(newUpload), ['id', 'name', 'domain', 'uploadKey'])
    assert.match(newUpload.uploadKey ?? '', /^sw_upl_/)
    assert.notEqual(newUpload.uploadKey, created.uploadKey)
    const both = await cli(['project', 'rotate-key', '--project', created.id ?? '', '--upload', '--ingest'], env)
    assert.equal(both.code, 2)
    assert.match(both.stderr, /--upload or --ingest, not both/)
    const missing = await cli(['project', 'rotate-key', '--project', 'p_nope'], env)
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /No project with id "p_nope"/)
  })

  // Through the binary, as a user pipes it: the process's own standard streams and exit code.
  it('imports NDJSON from standard input, reports bad lines, and exports it back', async () => {
    const created = JSON.parse((await cli(['project', 'create', '--name', 'T', '--domain', 't.example', '--json'], env)).stdout) as Record<string, string>
    const t = new Date().toISOString()
    const good = JSON.stringify({ id: 'cli-s1', sessionKey: 'cli-s1-key', startedAt: t, lastSeenAt: t, ip: null, country: null, userAgent: null, utm: null,
      events: [{ id: 'e1', type: 'ERROR', createdAt: t, message: 'boom' }] })
    const imported = await cliProcess(['import', '--project', created.id ?? '', '-'], env, `${good}\n{"broken"\n`)
    assert.equal(imported.code, 1, 'a bad line makes the exit code non-zero')
    assert.match(imported.stderr, /line 2: not valid JSON/)
    assert.match(imported.stderr, /imported 1 sessions \(1 new events, 0 already stored\); 1 bad lines skipped/)
    const exported = await cliProcess(['export', '--project', created.id ?? ''], env)
    assert.equal(exported.code, 0, exported.stderr)
    const lines = exported.stdout.trim().split('\n')
    assert.equal(lines.length, 1)
    assert.equal((JSON.parse(lines[0] ?? '{}') as { id: string }).id, 'cli-s1')
    const file = path.join(dir, 'export.ndjson')
    fs.writeFileSync(file, exported.stdout)
    const again = await cli(['import', '--project', created.id ?? '', file], env)
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stderr, /0 new events, 1 already stored/)
    const badDate = await cli(['export', '--project', created.id ?? '', '--date', '2026-02-30'], env)
    assert.equal(badDate.code, 1)
    assert.match(badDate.stderr, /--date must be a calendar date/)
  })

  it('import keeps recordings within RECORDING_MAX_CHUNK_BYTES and RECORDING_MAX_SESSION_BYTES, dropping and counting the rest as ingest does', async () => {
    const created = JSON.parse((await cli(['project', 'create', '--name', 'L', '--domain', 'l.example', '--json'], env)).stdout) as Record<string, string>
    const start = Date.now() - 60_000
    const t = new Date(start).toISOString()
    // Random text barely compresses, so each chunk's gzip size is about the random bytes it carries.
    const chunk = (id: string, randomChars: number) => ({
      ...chunkUpload(id, rrwebEvents(start, 1, randomBytes(randomChars).toString('base64'))), startedAt: t,
    })
    const session = (id: string, chunks: ReturnType<typeof chunk>[]) => JSON.stringify({
      id, sessionKey: `${id}-key`, startedAt: t, lastSeenAt: t, ip: null, country: null, userAgent: null, utm: null,
      events: [{ id: 'e1', type: 'ERROR', createdAt: t, message: 'boom' }], recordingChunks: chunks,
    })
    const sizeOf = (c: { data: string }) => Buffer.from(c.data, 'base64').length
    const [small, big, first, second] = [chunk('small', 100), chunk('big', 1500), chunk('first', 500), chunk('second', 500)]
    assert.ok(sizeOf(small) < 1024 && sizeOf(big) > 1024, `chunk sizes ${sizeOf(small)}, ${sizeOf(big)} straddle the 1024-byte chunk limit`)
    assert.ok(sizeOf(first) < 1024 && sizeOf(first) + sizeOf(second) > 1100 && sizeOf(small) < 1100, 'two mid chunks pass the session limit')
    const limited = { ...env, RECORDING_MAX_CHUNK_BYTES: '1024', RECORDING_MAX_SESSION_BYTES: '1100' }
    const input = `${session('cli-big', [small, big])}\n${session('cli-many', [first, second])}\n`
    const imported = await cli(['import', '--project', created.id ?? '', '-'], limited, input)
    assert.equal(imported.code, 0, imported.stderr)
    assert.match(imported.stderr, /2 recording chunks dropped and counted/)
    const exported = await cli(['export', '--project', created.id ?? ''], env)
    const stored = Object.fromEntries(exported.stdout.trim().split('\n').map((l) => {
      const s = JSON.parse(l) as { id: string; recordingChunks?: { id: string }[] }
      return [s.id, (s.recordingChunks ?? []).map((c) => c.id)]
    }))
    assert.deepEqual(stored, { 'cli-big': ['small'], 'cli-many': ['first'] }, 'the over-large chunk and the one past the session limit are not kept')
  })

  it('runs retention and says what it deleted', async () => {
    const res = await cli(['retention', 'run'], env)
    assert.equal(res.code, 0, res.stderr)
    assert.match(res.stdout, /retention: deleted \d+ expired sessions across \d+ projects/)
  })

  it('reports every configuration error at once', async () => {
    const res = await cliProcess(['project', 'list'], { DATABASE_URL: 'mysql://nope', PORT: 'x', LOG_LEVEL: 'loud' })
    assert.equal(res.code, 78)
    assert.match(res.stderr, /DATABASE_URL=/)
    assert.match(res.stderr, /PORT=/)
    assert.match(res.stderr, /LOG_LEVEL=/)
  })

  it('admin reset-password prints a new password each time, stored only as a hash', async () => {
    const first = await cli(['admin', 'reset-password'], env)
    assert.equal(first.code, 0, first.stderr)
    const password = /New dashboard password: (\w{20})/.exec(first.stdout)?.[1]
    assert.ok(password)
    const second = await cli(['admin', 'reset-password'], env)
    assert.notEqual(/New dashboard password: (\w{20})/.exec(second.stdout)?.[1], password)
  })

  it('webhook add, list and remove; a bad URL or an unknown webhook fails naming it', async () => {
    const project = (JSON.parse((await cli(['project', 'create', '--name', 'W', '--domain', 'w.example', '--json'], env)).stdout) as Record<string, string>).id ?? ''
    const added = await cli(['webhook', 'add', '--project', project, '--url', 'https://hooks.slack.com/services/T0/B0/x', '--json'], env)
    assert.equal(added.code, 0, added.stderr)
    const hook = JSON.parse(added.stdout) as { id: string; url: string; secret: string }
    assert.match(hook.id, /^wh_/)
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'the signing secret, shown once')
    const listed = await cli(['webhook', 'list', '--project', project], env)
    assert.ok(!listed.stdout.includes(hook.secret), 'and never again')
    assert.match(listed.stdout, new RegExp(`^${hook.id}  https://hooks\\.slack\\.com/services/T0/B0/x  added `))
    const local = await cli(['webhook', 'add', '--project', project, '--url', 'http://127.0.0.1:9000/'], env)
    assert.equal(local.code, 1)
    assert.match(local.stderr, /url is refused: 127\.0\.0\.1 is a loopback address.*WEBHOOK_ALLOW_PRIVATE=true/)
    const allowed = await cli(['webhook', 'add', '--project', project, '--url', 'http://127.0.0.1:9000/'], { ...env, WEBHOOK_ALLOW_PRIVATE: 'true' })
    assert.equal(allowed.code, 0, allowed.stderr)
    assert.match(allowed.stdout, /^Webhook wh_\S+ added: new issues and regressions are posted to http:\/\/127\.0\.0\.1:9000\/\nSigning secret \(shown once; .*\): whsec_\S{44}\n$/)
    const listedJson = (await cli(['webhook', 'list', '--project', project, '--json'], env)).stdout
    assert.ok(!listedJson.includes('whsec_'), 'list --json shows no secret')
    assert.equal((await cli(['webhook', 'add', '--project', project], env)).code, 2, '--url is required')
    const removed = await cli(['webhook', 'remove', '--project', project, hook.id], env)
    assert.equal(removed.code, 0, removed.stderr)
    assert.equal((JSON.parse((await cli(['webhook', 'list', '--project', project, '--json'], env)).stdout) as unknown[]).length, 1)
    const again = await cli(['webhook', 'remove', '--project', project, hook.id], env)
    assert.equal(again.code, 1)
    assert.match(again.stderr, new RegExp(`No webhook "${hook.id}"`))
    assert.equal((await cli(['webhook', 'remove', '--project', project], env)).code, 2, 'WEBHOOK_ID is required')
  })

  it('project create and update set the ingest rate limit and daily quota, naming a bad value', async () => {
    const created = await cli(['project', 'create', '--name', 'L', '--domain', 'l.example', '--rate-limit', '50', '--daily-quota', '100000', '--json'], env)
    assert.equal(created.code, 0, created.stderr)
    const id = (JSON.parse(created.stdout) as { id: string }).id
    assert.match((await cli(['project', 'list'], env)).stdout, new RegExp(`${id}  L \\(l\\.example\\)  retention 30 d  IP full \\(server default\\)  rate limit 50/s  daily quota 100000 events`))
    const updated = await cli(['project', 'update', '--project', id, '--rate-limit', 'default', '--daily-quota', 'none', '--json'], env)
    assert.equal(updated.code, 0, updated.stderr)
    assert.deepEqual(Object.entries(JSON.parse(updated.stdout) as Record<string, unknown>).filter(([k]) => k === 'ingestRateLimit' || k === 'dailyEventQuota'),
      [['ingestRateLimit', null], ['dailyEventQuota', null]])
    const bad = await cli(['project', 'update', '--project', id, '--daily-quota', '0'], env)
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /dailyEventQuota must be a whole number of events from 1 to 1000000000000, or null for no quota \(got 0\)/)
  })

  it('project update sets a recording budget from a size, and project list prints the recording bytes', async () => {
    const created = await cli(['project', 'create', '--name', 'B', '--domain', 'b.example', '--json'], env)
    const id = (JSON.parse(created.stdout) as { id: string }).id
    const updated = await cli(['project', 'update', '--project', id, '--recording-budget', '1.5GiB', '--json'], env)
    assert.equal(updated.code, 0, updated.stderr)
    assert.equal((JSON.parse(updated.stdout) as { recordingBudget: number }).recordingBudget, 1.5 * 2 ** 30)
    const listed = (JSON.parse((await cli(['project', 'list', '--json'], env)).stdout) as { id: string; recordingBytes: number; recordingBudget: number | null }[])
      .find((p) => p.id === id)
    assert.deepEqual([listed?.recordingBytes, listed?.recordingBudget], [0, 1.5 * 2 ** 30])
    assert.match((await cli(['project', 'list'], env)).stdout, /recordings 0 B \(budget 1\.6 GB\)/)
    const bad = await cli(['project', 'update', '--project', id, '--recording-budget', 'lots'], env)
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /--recording-budget must be a size such as 500MB or 2GiB/)
    const none = await cli(['project', 'update', '--project', id, '--recording-budget', 'none', '--json'], env)
    assert.equal((JSON.parse(none.stdout) as { recordingBudget: number | null }).recordingBudget, null)
  })

  it('project update turns public replay links on and off', async () => {
    const created = await cli(['project', 'create', '--name', 'R', '--domain', 'r.example', '--json'], env)
    const id = (JSON.parse(created.stdout) as { id: string; publicReplays: boolean }).id
    const on = await cli(['project', 'update', '--project', id, '--public-replays', 'on', '--json'], env)
    assert.equal(on.code, 0, on.stderr)
    assert.equal((JSON.parse(on.stdout) as { publicReplays: boolean }).publicReplays, true)
    assert.match((await cli(['project', 'list'], env)).stdout, /public replay links on/)
    const off = await cli(['project', 'update', '--project', id, '--public-replays', 'off', '--json'], env)
    assert.equal((JSON.parse(off.stdout) as { publicReplays: boolean }).publicReplays, false)
    const bad = await cli(['project', 'update', '--project', id, '--public-replays', 'yes'], env)
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /--public-replays must be on or off/)
  })

  it('project create and update set IP storage and masked fields, naming a bad value', async () => {
    const created = await cli(['project', 'create', '--name', 'P', '--domain', 'p.example', '--ip-storage', 'truncated', '--mask-fields', 'iban, phone', '--json'], env)
    assert.equal(created.code, 0, created.stderr)
    const id = (JSON.parse(created.stdout) as { id: string }).id
    const listed = (JSON.parse((await cli(['project', 'list', '--json'], env)).stdout) as { id: string; ipStorage: string | null; maskFields: string[] }[])
      .find((p) => p.id === id)
    assert.deepEqual([listed?.ipStorage, listed?.maskFields], ['truncated', ['iban', 'phone']])
    assert.match((await cli(['project', 'list'], env)).stdout, new RegExp(`${id}  P \\(p\\.example\\)  retention 30 d  IP truncated  masked fields iban,phone`))
    const updated = await cli(['project', 'update', '--project', id, '--ip-storage', 'default', '--mask-fields', '', '--json'], env)
    assert.equal(updated.code, 0, updated.stderr)
    const changed = JSON.parse(updated.stdout) as { ipStorage: string | null; maskFields: string[] }
    assert.deepEqual([changed.ipStorage, changed.maskFields], [null, []])
    const renamed = await cli(['project', 'update', '--project', id, '--name', 'P2'], env)
    assert.ok(renamed.stdout.startsWith(`Updated: ${id}  P2 (p.example)  retention 30 d  IP full (server default)  rate limit 1000/s (server default)  API key`), renamed.stdout)
    const bad = await cli(['project', 'update', '--project', id, '--ip-storage', 'hashed'], env)
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /--ip-storage must be full, truncated, none or default/)
    const long = await cli(['project', 'update', '--project', id, '--mask-fields', `ok,${'x'.repeat(65)}`], env)
    assert.equal(long.code, 1)
    assert.match(long.stderr, /maskFields\[1\] must be a field name of 1 to 64 characters \(got 65\)/)
    assert.equal((await cli(['project', 'update', '--project', id], env)).code, 2, 'an update needs a change')
    assert.equal((await cli(['project', 'update', '--project', 'p_nope', '--name', 'x'], env)).code, 1)
  })

  it('erase deletes a visitor\'s visits and says how many; bad input fails naming it', async () => {
    const project = (JSON.parse((await cli(['project', 'create', '--name', 'E', '--domain', 'e.example', '--json'], env)).stdout) as { id: string }).id
    const t = new Date().toISOString()
    const line = (id: string, ip: string, user: string | null) => JSON.stringify({ id, sessionKey: `${id}-key`, startedAt: t, lastSeenAt: t, ip,
      user: user === null ? null : { id: user, traits: null }, events: [{ id: 'e1', type: 'ERROR', createdAt: t, message: 'boom' }] })
    const lines = [line('erase-a1', '203.0.113.7', 'ann'), line('erase-a2', '198.51.100.2', 'ann'), line('erase-b1', '203.0.113.7', 'ben'), line('erase-c1', '198.51.100.3', null)]
    assert.equal((await cli(['import', '--project', project, '-'], env, `${lines.join('\n')}\n`)).code, 0)

    const ann = await cli(['erase', '--project', project, '--user', 'ann', '--json'], env)
    assert.equal(ann.code, 0, ann.stderr)
    assert.deepEqual(JSON.parse(ann.stdout), { erased: 2, note: null })
    const again = await cli(['erase', '--project', project, '--user', 'ann'], env)
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stdout, new RegExp(`^erased 0 visits from project ${project}`))
    assert.match((await cli(['erase', '--project', project, '--ip', '203.0.113.7'], env)).stdout, /^erased 1 visits/)
    assert.match((await cli(['erase', '--project', project, '--session', 'erase-c1'], env)).stdout, /^erased 1 visits/)
    assert.equal((await cli(['export', '--project', project], env)).stdout, '', 'nothing of the four visits is left')

    const none = await cli(['erase', '--project', project], env)
    assert.equal(none.code, 2)
    assert.match(none.stderr, /erase takes exactly one of --user, --session and --ip \(got none\)/)
    const two = await cli(['erase', '--project', project, '--user', 'ann', '--ip', '203.0.113.7'], env)
    assert.equal(two.code, 2)
    assert.match(two.stderr, /got --user and --ip/)
    const ip = await cli(['erase', '--project', project, '--ip', '203.0.113'], env)
    assert.equal(ip.code, 1)
    assert.match(ip.stderr, /ip must be an IPv4 or IPv6 address such as 203\.0\.113\.7 or 2001:db8::1 \(got "203\.0\.113"\)/)
    const unknown = await cli(['erase', '--project', 'p_nope', '--user', 'ann'], env)
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /No project with id "p_nope"/)
  })

  it('prints usage for help', async () => {
    const res = await cliProcess(['help'], env)
    assert.equal(res.code, 0)
    assert.match(res.stdout, /project create --name NAME --domain DOMAIN/)
    assert.match(res.stdout, /webhook add --project ID --url URL/)
    assert.match(res.stdout, /erase --project ID \(--user ID \| --session ID \| --ip IP\) \[--json\]/)
  })
})}
