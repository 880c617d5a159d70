import { spawn, type ChildProcess } from 'node:child_process'
import { readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../../scripts/lib/postgres-server.ts'

export const ROOT = path.resolve(import.meta.dirname, '..', '..')

/** The service's V8 heap in bytes, from bench/lib/heap-probe.mjs: now, and the largest since it started. */
export interface HeapFigures {
  used: number
  total: number
  peakTotal: number
}

export interface RunningService {
  url: string
  child: ChildProcess
  /** Resident set size of the service process, in bytes (Linux /proc). */
  rss(): Promise<number>
  /** Its V8 heap now, and the largest of the probe's samples (every 100 ms), asked of the probe with SIGUSR2. */
  heap(): Promise<HeapFigures>
  stop(): Promise<void>
}

const PROBE = path.join(import.meta.dirname, 'heap-probe.mjs')

/**
 * Starts `sessionwatch serve` in its own process, exactly as `npm start` does, and waits for /healthz. `root` is the
 * checkout to run (another worktree, to compare with main). The heap probe is this checkout's, whichever tree runs, so
 * both trees are measured the same way.
 */
export async function startService(databaseUrl: string, env: Record<string, string> = {}, root = ROOT): Promise<RunningService> {
  const port = await freePort()
  const heapFile = path.join(os.tmpdir(), `sessionwatch-bench-heap-${String(port)}.json`)
  const child = spawn(process.execPath, [path.join(root, 'bin', 'sessionwatch.mjs'), 'serve'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
      RETENTION_SWEEP_SECONDS: '0', SW_BENCH_HEAP_FILE: heapFile, ...env,
      NODE_OPTIONS: `--import ${pathToFileURL(PROBE).href}${env.NODE_OPTIONS ? ` ${env.NODE_OPTIONS}` : ''}` },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`)
    try {
      if ((await fetch(`${url}/healthz`)).ok) break
    } catch {
      // not listening yet
    }
    if (i > 300) throw new Error('service did not become healthy within 30 s')
    await sleep(100)
  }
  return {
    url,
    child,
    rss: async () => {
      const status = await readFile(`/proc/${String(child.pid)}/status`, 'utf8')
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
    },
    heap: async () => {
      await rm(heapFile, { force: true })
      child.kill('SIGUSR2')
      for (let i = 0; i < 100; i++) {
        const text = await readFile(heapFile, 'utf8').catch(() => null)
        if (text !== null) return JSON.parse(text) as HeapFigures
        await sleep(20)
      }
      throw new Error(`the heap probe wrote no ${heapFile} within 2 s`)
    },
    stop: async () => {
      // A service that already died (a crash mid-run) has sent its exit event: waiting for it would hang.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      await rm(heapFile, { force: true })
    },
  }
}
