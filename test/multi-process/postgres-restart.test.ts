/**
 * PostgreSQL killed (SIGKILL to the postmaster) and restarted under concurrent ingest, with the
 * service running as production runs it: a process of its own, which must outlive the outage.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { startServer } from '../helpers/cli.ts'
import { testEngines } from '../helpers/engines.ts'
import { eventually } from '../helpers/wait.ts'
import { startTestPostgres, type TestPostgres } from '../../scripts/lib/postgres-server.ts'

const LISTENING = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/
const WORKERS = 8
const EVENTS_PER_BATCH = 5
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Starts the server again on its data directory and port; the killed one's backends may still be leaving. */
async function restart(dataDir: string, port: number): Promise<TestPostgres> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTestPostgres(() => undefined, { durable: true, dataDir, port })
    } catch (error) {
      if (attempt >= 20) throw error
      await sleep(250)
    }
  }
}

describe('PostgreSQL killed and restarted under ingest', { skip: testEngines().includes('postgres') ? false : 'needs PostgreSQL' }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-pg-restart-'))
  let database: TestPostgres
  let server: ReturnType<typeof startServer>

  before(async () => {
    // Durable, as in production: an acknowledged commit must survive the kill.
    database = await startTestPostgres(() => undefined, { durable: true, dataDir })
    server = startServer({ DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RETENTION_SWEEP_SECONDS: '0' })
  })
  after(async () => {
    server.child.kill('SIGKILL')
    await database.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('stays up, answers 503 with Retry-After during the outage, recovers by itself, and stores every 2xx batch once', async () => {
    const base = (await server.waitFor(LISTENING))[1] ?? ''
    const [, ingestKey] = await server.waitFor(/Ingest key[^:]*: (sw_ing_\S+)/)
    const [, apiKey] = await server.waitFor(/API key[^:]*: (sw_api_\S+)/)

    const acknowledged = new Map<string, string[]>() // session id → acknowledged batch ids
    const statuses: number[] = []
    const dropped: string[] = []
    let stop = false
    // A call, not a variable: the workers must see the flag change while they run.
    const stopping = () => stop
    const worker = async (w: number) => {
      for (let b = 0; !stopping(); b++) {
        const body = {
          sessionKey: `restart-worker-${w}`, batchId: `w${w}-b${b}`,
          events: Array.from({ length: EVENTS_PER_BATCH }, (_, i) => ({ type: 'CLICK', message: `w${w} b${b} e${i}` })),
        }
        // Like the SDK: a batch that was not acknowledged is sent again until it is.
        for (;;) {
          let res: Response
          try {
            res = await fetch(`${base}/ingest/v1/batch`, {
              method: 'POST', headers: { 'content-type': 'application/json', 'x-ingest-key': ingestKey ?? '' }, body: JSON.stringify(body),
            })
          } catch (error) {
            dropped.push(String(error))
            await sleep(100)
            continue
          }
          statuses.push(res.status)
          const answer = await res.json() as { sessionId?: string; code?: string }
          if (res.status === 200) {
            const id = answer.sessionId ?? ''
            acknowledged.set(id, [...(acknowledged.get(id) ?? []), body.batchId])
            break
          }
          assert.equal(res.status, 503, JSON.stringify(answer))
          assert.equal(answer.code, 'service_unavailable')
          assert.equal(res.headers.get('retry-after'), '5')
          if (stopping()) break
          await sleep(100)
        }
      }
    }
    const health = async () => (await fetch(`${base}/healthz`)).status

    const workers = Array.from({ length: WORKERS }, (_, w) => worker(w))
    const answered = (status: number, since = 0) => statuses.slice(since).filter((s) => s === status).length
    await eventually(() => Promise.resolve(answered(200) >= 2 * WORKERS || null), 'ingest under way')
    const pid = Number(fs.readFileSync(path.join(dataDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0])
    process.kill(pid, 'SIGKILL')
    const killed = statuses.length
    await eventually(() => Promise.resolve(answered(503, killed) >= WORKERS || null), 'ingest answering 503')
    assert.equal(await health(), 503, '/healthz says the database is unreachable')
    const during = statuses.length

    database = await restart(dataDir, database.port)
    const deadline = Date.now() + 30_000
    while (await health() !== 200) {
      assert.ok(Date.now() < deadline, '/healthz recovers by itself once PostgreSQL is back')
      await sleep(200)
    }
    await eventually(() => Promise.resolve(answered(200, during) >= 2 * WORKERS || null), 'ingest resumed')
    stop = true
    await Promise.all(workers)

    assert.equal(server.child.exitCode, null, `the service is still running:\n${server.output().slice(-2000)}`)
    assert.deepEqual(dropped, [], 'no request lost its connection')
    assert.ok(statuses.includes(503), 'the outage was seen as 503s')
    assert.ok(statuses.slice(during).includes(200), 'ingest resumed after the restart')
    const outageLines = server.output().split('\n').filter((l) => l.includes('database unreachable'))
    assert.ok(outageLines.length >= 1 && outageLines.length < statuses.filter((s) => s === 503).length,
      `the outage is logged once per episode, not per request (${outageLines.length} lines)`)

    // Every acknowledged batch is stored, exactly once; counters agree with the stored events.
    for (const [sessionId, batches] of acknowledged) {
      const res = await fetch(`${base}/api/v1/sessions/${sessionId}`, { headers: { authorization: `Bearer ${apiKey ?? ''}` } })
      assert.equal(res.status, 200)
      const detail = await res.json() as { session: { events: { total: number } }; events: { id: string }[] }
      const ids = detail.events.map((e) => e.id)
      assert.equal(new Set(ids).size, ids.length)
      assert.equal(detail.session.events.total, ids.length)
      for (const batch of batches) {
        for (let i = 0; i < EVENTS_PER_BATCH; i++) assert.ok(ids.includes(`${batch}-${i}`), `${batch}-${i} was acknowledged`)
      }
      // Nothing that was never sent: every stored batch was acknowledged (each retried until it was).
      assert.equal(ids.length, batches.length * EVENTS_PER_BATCH)
    }
  })
})
