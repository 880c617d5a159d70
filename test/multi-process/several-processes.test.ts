import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { cliProcess as cli, startServer } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts'
import { testEngines } from '../helpers/engines.ts'

type Server = ReturnType<typeof startServer>
const LISTENING = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/

async function post(base: string, ingestKey: string, body: unknown) {
  const res = await fetch(`${base}/ingest/v1/batch`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-ingest-key': ingestKey }, body: JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() as Record<string, unknown> }
}

describe('several service processes on one PostgreSQL database', { skip: testEngines().includes('postgres') ? false : 'needs PostgreSQL' }, () => {
  let database: TestDatabase
  const servers: Server[] = []
  const bases: string[] = []
  let apiKey = ''
  let ingestKey = ''

  before(async () => {
    database = await createTestDatabase('postgres')
    // Started together on an empty database: both migrate and both try the first-run project.
    for (let i = 0; i < 2; i++) servers.push(startServer({ DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }))
    for (const s of servers) bases.push((await s.waitFor(LISTENING))[1] ?? '')
  })
  after(async () => {
    for (const s of servers) s.child.kill('SIGKILL')
    await database.cleanup()
  })

  it('migrates once and creates exactly one first project between them', async () => {
    const banners = await Promise.all(servers.map(async (s) => {
      // Printed last, after the first project's keys, on every start.
      await s.waitFor(/Sessionwatch is running/)
      return /API key \(secret, read-only; shown only now\): (sw_api_\S+)\n(?: {2}Upload key[^\n]*\n)? {2}Ingest key[^:]*: (sw_ing_\S+)/.exec(s.output())
    }))
    const printed = banners.filter((b) => b !== null)
    assert.equal(printed.length, 1, 'one process printed the first project')
    apiKey = printed[0]?.[1] ?? ''
    ingestKey = printed[0]?.[2] ?? ''
    for (const base of bases) {
      const res = await fetch(`${base}/healthz`)
      assert.equal(res.status, 200)
    }
  })

  it('ingests through both and reads the same sessions and counters through either', async () => {
    const sessions = 6
    const batchesPerSession = 8
    const requests: Promise<{ status: number }>[] = []
    for (let s = 0; s < sessions; s++) {
      for (let b = 0; b < batchesPerSession; b++) {
        const base = bases[(s + b) % bases.length] ?? ''
        const body = { sessionKey: `multi-${s}-session`, batchId: `b${b}`, events: [
          { type: 'ERROR', message: `e${b}` }, { type: 'SLOW_REQUEST', url: 'https://x/', durationMs: 2000 }, { type: 'CLICK', message: 'c' },
        ] }
        requests.push(post(base, ingestKey, body))
        // The same batch again, through the other process: a retry must not duplicate.
        if (b % 3 === 0) requests.push(post(bases[(s + b + 1) % bases.length] ?? '', ingestKey, body))
      }
    }
    const results = await Promise.all(requests)
    assert.ok(results.every((r) => r.status === 200), JSON.stringify(results.filter((r) => r.status !== 200)))

    const answers = await Promise.all(bases.map(async (base) => {
      const res = await fetch(`${base}/api/v1/sessions?limit=200`, { headers: { authorization: `Bearer ${apiKey}` } })
      return res.text()
    }))
    assert.equal(answers[0], answers[1], 'both processes give the same answer')
    const list = JSON.parse(answers[0] ?? '{}') as { total: number; sessions: { events: Record<string, number> }[] }
    assert.equal(list.total, sessions)
    for (const s of list.sessions) {
      assert.deepEqual(s.events, { total: 3 * batchesPerSession, errors: batchesPerSession, slow: batchesPerSession })
    }
  })
})

for (const engine of testEngines()) {
  describe(`graceful shutdown [${engine}]`, () => {
    let database: TestDatabase
    before(async () => { database = await createTestDatabase(engine) })
    after(() => database.cleanup())

    it('finishes requests in flight, keeps every acknowledged batch, and exits 0', async () => {
      const server = startServer({ DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' })
      const base = (await server.waitFor(LISTENING))[1] ?? ''
      const [, key] = await server.waitFor(/Ingest key[^:]*: (sw_ing_\S+)/)
      const [, api] = await server.waitFor(/API key[^:]*: (sw_api_\S+)/)
      const events = Array.from({ length: 400 }, (_, i) => ({ type: 'CLICK', message: `click ${i}` }))
      const inFlight = Array.from({ length: 12 }, (_, i) =>
        post(base, key ?? '', { sessionKey: `drain-${i}-session`, batchId: 'b1', events }).catch(() => ({ status: 0, body: {} })))
      // Not a wait for anything: the requests are under way, some of them read, when the signal comes.
      await new Promise((r) => setTimeout(r, 20))
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve))
      server.child.kill('SIGTERM')
      const results = await Promise.all(inFlight)
      assert.equal(await exited, 0)
      assert.ok(results.every((r) => [0, 200, 503].includes(r.status)), `no request failed mid-way: ${results.map((r) => r.status).join(',')}`)
      const acknowledged = results.filter((r) => r.status === 200).map((r) => String((r.body as Record<string, unknown>).sessionId))
      // Read back through a fresh process: every acknowledged batch is stored whole.
      const reader = startServer({ DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' })
      const readBase = (await reader.waitFor(LISTENING))[1] ?? ''
      for (const id of acknowledged) {
        const res = await fetch(`${readBase}/api/v1/sessions/${id}`, { headers: { authorization: `Bearer ${api ?? ''}` } })
        const body = await res.json() as { session: { events: { total: number } } }
        assert.equal(body.session.events.total, 400)
      }
      reader.child.kill('SIGKILL')
    })
  })
}

for (const engine of testEngines()) {
  describe(`a key rotated by another process [${engine}]`, () => {
    let database: TestDatabase
    before(async () => { database = await createTestDatabase(engine) })
    after(() => database.cleanup())

    it('stops working in the running service once the CLI that rotated it has returned, though the service had it in memory', async () => {
      const server = startServer({ DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' })
      try {
        const base = (await server.waitFor(LISTENING))[1] ?? ''
        const [, api] = await server.waitFor(/API key[^:]*: (sw_api_\S+)/)
        const [, project] = await server.waitFor(/Project (p_\S+):/)
        const read = (key: string) => fetch(`${base}/api/v1/sessions`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status)
        // Read twice, so the key is resolved from memory from then on.
        assert.deepEqual([await read(api ?? ''), await read(api ?? '')], [200, 200])
        const rotated = await cli(['project', 'rotate-key', '--project', project ?? '', '--json'], { DATABASE_URL: database.url })
        assert.equal(rotated.code, 0, rotated.stderr)
        assert.equal(await read(api ?? ''), 401, 'the old key is refused')
        assert.equal(await read((JSON.parse(rotated.stdout) as { apiKey: string }).apiKey), 200, 'the new key reads')
      } finally {
        server.child.kill('SIGKILL')
      }
    })
  })
}
