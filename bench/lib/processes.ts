import { spawn } from 'node:child_process'
import path from 'node:path'
import { freePort } from '../../scripts/lib/postgres-server.ts'
import { ROOT } from './service.ts'

/** Starts bench/ceiling-server.ts in its own process and returns its URL and a stop function. */
export async function startCeiling(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'ceiling-server.ts'), String(port)], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => { resolve() })
    child.once('exit', (code) => { reject(new Error(`ceiling server exited with ${String(code)}`)) })
  })
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** Samples a value every `ms` until stopped; returns the largest seen. */
export function sampleMax(read: () => Promise<number>, ms = 50): { stop: () => Promise<number> } {
  const state = { max: 0, running: true }
  const loop = (async () => {
    while (state.running) {
      state.max = Math.max(state.max, await read().catch(() => 0))
      await new Promise((r) => setTimeout(r, ms))
    }
  })()
  return { stop: async () => { state.running = false; await loop; return state.max } }
}
