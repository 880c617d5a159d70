/**
 * `node --import tsx bench/sourcemaps.ts [--engines sqlite,postgres] [--requests N]`: the price of
 * source maps on getSession, alone and light enough to run beside other work. The same session of 200
 * ERROR events (stacks into a ~6 MB map) is read with its script's map uploaded and without one,
 * alternately, one request at a time, from the service started as `npm start` starts it (its own
 * process, real HTTP). Prints the medians and p95s and their ratio; issue 12 asks for mapped ≤ 2×
 * unmapped. `npm run bench` measures the same two scenarios under load, against the ceiling.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig, type Engine } from '../src/config.ts'
import { openDatabase } from '../src/database.ts'
import { startTestPostgres, type TestPostgres } from '../scripts/lib/postgres-server.ts'
import { startService } from './lib/service.ts'
import { ensureMapSessions } from './lib/sourcemaps.ts'

const { values } = parseArgs({ options: { engines: { type: 'string', default: 'sqlite,postgres' }, requests: { type: 'string', default: '300' } } })
const requests = Number(values.requests)
const log = (line: string) => { process.stderr.write(`${line}\n`) }
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-bench-maps-'))
let server: TestPostgres | null = null

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0

try {
  for (const engine of values.engines.split(',').map((e) => e.trim()) as Engine[]) {
    let url = `file:${path.join(dir, 'maps.sqlite')}`
    if (engine === 'postgres') {
      server ??= await startTestPostgres()
      url = server.url
    }
    const database = await openDatabase(loadConfig({ DATABASE_URL: url }).database)
    const maps = await ensureMapSessions(database.db, log).finally(() => database.close())
    const service = await startService(url)
    try {
      const get = async (id: string) => {
        const start = performance.now()
        const res = await fetch(`${service.url}/api/v1/sessions/${id}`, { headers: { authorization: `Bearer ${maps.apiKey}` } })
        const body = await res.arrayBuffer()
        if (res.status !== 200) throw new Error(`${id} answered ${res.status}`)
        return { ms: performance.now() - start, bytes: body.byteLength }
      }
      // Warm-up: the map parsed and cached, the lookups remembered, the JIT settled.
      for (let i = 0; i < 30; i++) {
        await get(maps.mapped)
        await get(maps.unmapped)
      }
      const times = { mapped: [] as number[], unmapped: [] as number[] }
      const bytes = { mapped: 0, unmapped: 0 }
      for (let i = 0; i < requests; i++) {
        for (const kind of i % 2 === 0 ? ['mapped', 'unmapped'] as const : ['unmapped', 'mapped'] as const) {
          const one = await get(maps[kind])
          times[kind].push(one.ms)
          bytes[kind] = one.bytes
        }
      }
      const row = (kind: 'mapped' | 'unmapped') => {
        const sorted = [...times[kind]].sort((a, b) => a - b)
        return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), bytes: bytes[kind] }
      }
      const [mapped, unmapped] = [row('mapped'), row('unmapped')]
      console.log(`${engine}: getSession of 200 ERROR events, ${requests} requests each, map ${maps.mapBytes} bytes`)
      console.log(`  unmapped  median ${unmapped.median.toFixed(2)} ms  p95 ${unmapped.p95.toFixed(2)} ms  ${unmapped.bytes} bytes`)
      console.log(`  mapped    median ${mapped.median.toFixed(2)} ms  p95 ${mapped.p95.toFixed(2)} ms  ${mapped.bytes} bytes`)
      console.log(`  mapped / unmapped: ${(mapped.median / unmapped.median).toFixed(2)}× (median), target ≤ 2×`)
    } finally {
      await service.stop()
    }
  }
} finally {
  await server?.stop()
  fs.rmSync(dir, { recursive: true, force: true })
}
