/**
 * `npm run bench:capacity`: how much one service process ingests, on each engine, with durable
 * writes (SQLite synchronous=FULL; PostgreSQL with fsync and synchronous_commit on), and how much
 * disk an event takes. Figures for docs/scaling.md; timings are printed, never asserted.
 *
 * Options: --seconds N (default 10), --connections N (default 50).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import pg from 'pg'
import { loadConfig } from '../src/config.ts'
import { openDatabase } from '../src/database.ts'
import { createProject } from '../src/projects/service.ts'
import { startTestPostgres } from '../scripts/lib/postgres-server.ts'
import { cpuSeconds, pidsNamed, selfCpuSeconds } from './lib/cpu.ts'
import { batchFactory, EVENTS_PER_BATCH } from './lib/batches.ts'
import { loadAll } from './lib/load.ts'
import { startService } from './lib/service.ts'

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } } })
const seconds = Number(values.seconds)
const connections = Number(values.connections)
const round2 = (x: number): number => Math.round(x * 100) / 100

interface Scenario { name: string; engine: 'sqlite' | 'postgres'; processes: number }
const scenarios: Scenario[] = [
  { name: 'SQLite, 1 process', engine: 'sqlite', processes: 1 },
  { name: 'PostgreSQL, 1 process', engine: 'postgres', processes: 1 },
  { name: 'PostgreSQL, 2 processes', engine: 'postgres', processes: 2 },
]

const pgServer = await startTestPostgres(() => undefined, { durable: true })
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-capacity-'))
const rows: Record<string, unknown>[] = []
try {
  for (const [index, scenario] of scenarios.entries()) {
    let url: string
    if (scenario.engine === 'sqlite') url = `file:${path.join(tmp, `capacity-${index}.db`)}`
    else {
      const admin = new pg.Client(pgServer.url)
      await admin.connect()
      await admin.query(`create database capacity_${index}`)
      await admin.end()
      url = pgServer.url.replace(/\/postgres$/, `/capacity_${index}`)
    }
    const handle = await openDatabase(loadConfig({ DATABASE_URL: url }).database)
    const project = await createProject(handle.db, { name: 'Capacity', domain: 'shop.example' })
    await handle.close()
    const services = await Promise.all(Array.from({ length: scenario.processes }, () => startService(url)))
    const run = (secs: number, tag: string) => loadAll(services.map((s, k) => ({
      url: s.url, path: '/ingest/v1/batch', method: 'POST' as const, seconds: secs,
      connections: Math.round(connections / services.length),
      headers: { 'content-type': 'application/json', 'x-ingest-key': project.ingestKey },
      body: batchFactory(`${tag}-${index}-${k}`),
    })))
    process.stderr.write(`${scenario.name}: warm-up…\n`)
    await run(2, 'warm')
    process.stderr.write(`${scenario.name}: measuring for ${seconds} s…\n`)
    const servicePids = services.map((s) => s.child.pid ?? 0)
    const cpu0 = { service: cpuSeconds(servicePids), db: cpuSeconds(pidsNamed('postgres')), load: selfCpuSeconds() }
    const result = await run(seconds, 'run')
    const batches = result.requests
    const cpu = {
      service: (cpuSeconds(servicePids) - cpu0.service) * 1000 / batches,
      db: (cpuSeconds(pidsNamed('postgres')) - cpu0.db) * 1000 / batches,
      load: (selfCpuSeconds() - cpu0.load) * 1000 / batches,
    }
    const rss = Math.max(...(await Promise.all(services.map((s) => s.rss()))))
    for (const s of services) await s.stop()

    const counted = await openDatabase(loadConfig({ DATABASE_URL: url }).database)
    const events = Number((await counted.db.selectFrom('events').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n)
    const sessions = Number((await counted.db.selectFrom('sessions').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n)
    await counted.close()
    let bytes: number
    if (scenario.engine === 'sqlite') {
      bytes = fs.statSync(url.slice(5)).size
    } else {
      const admin = new pg.Client(url)
      await admin.connect()
      bytes = Number((await admin.query<{ n: string }>('select pg_database_size(current_database()) as n')).rows[0]?.n)
      await admin.end()
    }
    rows.push({
      scenario: scenario.name,
      'batches/s': Math.round(result.rps),
      'events/s': Math.round(result.rps * EVENTS_PER_BATCH),
      'p50 ms': result.p50,
      'p99 ms': result.p99,
      'errors': result.non2xx + result.errors,
      'stored events': events,
      'stored sessions': sessions,
      'bytes/event': Math.round(bytes / events),
      'peak RSS MB': Math.round(rss / 1048576),
      'service CPU ms/batch': round2(cpu.service),
      'PostgreSQL CPU ms/batch': scenario.engine === 'postgres' ? round2(cpu.db) : 0,
      'load generator CPU ms/batch': round2(cpu.load),
    })
  }
} finally {
  await pgServer.stop()
  fs.rmSync(tmp, { recursive: true, force: true })
}
console.table(rows)
const chunkRows = await chunkRowSizes()
console.table(chunkRows)
const out = path.join(import.meta.dirname, 'capacity.json')
fs.writeFileSync(out, `${JSON.stringify({ measuredAt: new Date().toISOString(), node: process.version, cpus: os.cpus().length,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30), seconds, connections, eventsPerBatch: EVENTS_PER_BATCH, rows, chunkRows }, null, 2)}\n`)
console.log(`written ${path.relative(process.cwd(), out)}`)

/**
 * Issue 41: what a recording chunk leaves in the database when its bytes are in a store (RECORDINGS_URL file:): each
 * column's largest value in bytes (numbers as the 8 bytes of a bigint), over chunks uploaded the way the SDK does.
 * The target: no value over 200 bytes.
 */
async function chunkRowSizes(): Promise<Record<string, unknown>[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-capacity-chunks-'))
  try {
    const url = `file:${path.join(dir, 'chunks.db')}`
    const handle = await openDatabase(loadConfig({ DATABASE_URL: url }).database)
    const project = await createProject(handle.db, { name: 'Chunks', domain: 'shop.example' })
    await handle.close()
    const service = await startService(url, { RECORDINGS_URL: `file:${path.join(dir, 'recordings')}` })
    const chunk = gzipSync(JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ type: i === 0 ? 2 : 3, timestamp: Date.now() - 60_000 + i * 100, data: { source: 1, x: i } }))))
    for (let v = 0; v < 20; v++) {
      for (let c = 0; c < 5; c++) {
        // The longest ids the contract allows, so the figure is the worst case.
        const res = await fetch(`${service.url}/ingest/v1/recording?${new URLSearchParams({
          key: project.ingestKey, sessionKey: `capacity-visit-${String(v).padStart(110, '0')}`, chunk: `${'c'.repeat(90)}-${c}`,
          page: 'https://shop.example/checkout', mode: 'onError' }).toString()}`, { method: 'POST', body: chunk })
        if (!res.ok) throw new Error(`chunk upload answered ${res.status}: ${await res.text()}`)
      }
    }
    await service.stop()
    const counted = await openDatabase(loadConfig({ DATABASE_URL: url }).database)
    const stored = await counted.db.selectFrom('recording_chunks').selectAll().execute()
    await counted.close()
    const size = (v: unknown): number => (v === null ? 0 : typeof v === 'number' ? 8 : Buffer.isBuffer(v) ? v.length : Buffer.byteLength(typeof v === 'string' ? v : JSON.stringify(v)))
    const columns = Object.keys(stored[0] ?? {})
    const largest = Object.fromEntries(columns.map((c) => [c, Math.max(...stored.map((r) => size((r as Record<string, unknown>)[c])))]))
    const worst = Math.max(...Object.values(largest))
    process.stderr.write(`recording chunk rows with a file: store: ${stored.length} rows, largest value ${worst} bytes (target: at most 200)\n`)
    return [{ rows: stored.length, 'largest value (bytes)': worst, ...largest }]
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
