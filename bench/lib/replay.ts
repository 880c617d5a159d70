/**
 * The replay scenarios of `npm run bench`, once per recording store (RECORDINGS_URL `database:`, `file:`, and `s3://`
 * on s3rver, the S3 server the tests use): recording chunks uploaded by 50 connections, and one stored chunk read by
 * 50 connections as the player fetches it (gzip, streamed from the store). Each store gets a database of its own,
 * small: a chunk is read by its key, so the 1M-visit dataset would change nothing. s3rver writes objects to files
 * through Koa in one Node process: its figures bound what the client side costs, not what AWS S3 or MinIO would do.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { loadConfig } from '../../src/config.ts'
import { openDatabase } from '../../src/database.ts'
import { createProject } from '../../src/projects/service.ts'
import { startTestS3 } from '../../test/helpers/s3.ts'
import { load, type LoadResult } from './load.ts'
import { startService } from './service.ts'

type Engine = 'sqlite' | 'postgres'
export interface ReplayRow extends LoadResult { engine: Engine; scenario: string; bytes: number }

/** rrweb-like events of about `bytes` as JSON: mouse moves and DOM text, which compress as real recordings do (~5–10×). */
function chunkJson(start: number, bytes: number): string {
  const events: unknown[] = [{ type: 4, timestamp: start, data: { href: 'https://bench.example/', width: 1280, height: 800 } }]
  for (let i = 0; JSON.stringify(events).length < bytes; i++) {
    events.push({ type: 3, timestamp: start + i * 50, data: { source: 0, adds: [{ parentId: i, node: { type: 3, id: i + 10,
      textContent: `Order ${i} — ${randomBytes(6).toString('hex')} added to the basket at ${new Date(start + i).toISOString()}` } }], removes: [], texts: [], attributes: [] } })
  }
  return JSON.stringify(events)
}

export async function replayScenarios(
  engine: Engine, databaseFor: (engine: Engine, name: string) => Promise<string>,
  { seconds, connections, log }: { seconds: number; connections: number; log: (line: string) => void },
): Promise<ReplayRow[]> {
  const rows: ReplayRow[] = []
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-bench-replay-'))
  const s3 = await startTestS3('bench-recordings', 'r')
  const stores: [string, Record<string, string>][] = [
    ['database', { RECORDINGS_URL: 'database:' }],
    ['file', { RECORDINGS_URL: `file:${path.join(dir, 'files')}` }],
    ['s3', s3.env],
  ]
  const plain = chunkJson(Date.now() - 60_000, 300_000)
  const gz = gzipSync(plain)
  try {
    for (const [name, env] of stores) {
      log(`replay from ${name}…`)
      const url = await databaseFor(engine, `bench_replay_${name}_${Date.now()}`)
      const handle = await openDatabase(loadConfig({ DATABASE_URL: url }).database)
      const project = await createProject(handle.db, { name: `Replay ${name}`, domain: 'bench.example' })
      await handle.close()
      const service = await startService(url, env)
      try {
        // A new chunk each request, twenty to a visit: as many visitors' recorders uploading at once.
        let n = 0
        const data = gz.toString('base64')
        const put = await load({
          url: service.url, method: 'POST', seconds, connections, path: '/ingest/v1/batch',
          headers: { 'content-type': 'application/json', 'x-ingest-key': project.ingestKey },
          body: () => {
            n++
            return JSON.stringify({ sessionKey: `bench-replay-${name}-${Math.floor(n / 20)}`, batchId: `r${n}`, events: [], recording: [{ id: `c${n}`, data }] })
          },
        })
        rows.push({ engine, scenario: `replay: upload ${Math.round(gz.length / 1024)} KB chunks, ${name} store`, bytes: gz.length, ...put })
        const listed = await fetch(`${service.url}/ingest/v1/recording?key=${project.ingestKey}&sessionKey=bench-replay-get-${name}&chunk=g0`, {
          method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: gz,
        })
        const { sessionId } = await listed.json() as { sessionId: string }
        const route = `/api/v1/sessions/${sessionId}/recording/chunks/g0`
        const get = await load({ url: service.url, path: route, seconds, connections, headers: { authorization: `Bearer ${project.apiKey}`, 'accept-encoding': 'gzip' } })
        rows.push({ engine, scenario: `replay: get a ${Math.round(gz.length / 1024)} KB chunk, ${name} store`, bytes: gz.length, ...get })
      } finally {
        await service.stop()
      }
      if (engine === 'sqlite') fs.rmSync(url.slice(5), { force: true })
    }
  } finally {
    await s3.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return rows
}
