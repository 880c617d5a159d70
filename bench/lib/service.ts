import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../../scripts/lib/postgres-server.ts'

export const ROOT = path.resolve(import.meta.dirname, '..', '..')

export interface RunningService {
  url: string
  child: ChildProcess
  /** Resident set size of the service process, in bytes (Linux /proc). */
  rss(): Promise<number>
  stop(): Promise<void>
}

/**
 * Starts `sessionwatch serve` in its own process, exactly as `npm start` does, and waits for /healthz. `root` is the
 * checkout to run (another worktree, to compare with main).
 */
export async function startService(databaseUrl: string, env: Record<string, string> = {}, root = ROOT): Promise<RunningService> {
  const port = await freePort()
  const child = spawn(process.execPath, [path.join(root, 'bin', 'sessionwatch.mjs'), 'serve'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
      RETENTION_SWEEP_SECONDS: '0', ...env },
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
  const { readFile } = await import('node:fs/promises')
  return {
    url,
    child,
    rss: async () => {
      const status = await readFile(`/proc/${String(child.pid)}/status`, 'utf8')
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}
