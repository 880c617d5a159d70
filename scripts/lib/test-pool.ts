/**
 * Runs test files in a few worker processes (test-worker.ts) at once, each taking the next file of the queue as it
 * finishes one, so the files end close together whatever their lengths. A file that runs past the timeout, or whose
 * worker dies, fails; a new worker takes the rest of the queue.
 */
import { fork } from 'node:child_process'
import path from 'node:path'
import type { FileResult, FromWorker, ToWorker } from './test-worker.ts'

const WORKER = path.join(import.meta.dirname, 'test-worker.ts')
const REPORTER = path.join(import.meta.dirname, 'test-reporter.ts')
/** How long a worker may take to exit once it has no file left: longer means a test left something running. */
const EXIT_GRACE_MS = 15_000

export interface PoolOptions {
  workers: number
  /** Milliseconds a file may run before it fails (0: no limit). */
  timeoutMs: number
  cwd: string
  env: NodeJS.ProcessEnv
  /** Each file's result as it comes, with how long the file took. */
  onResult: (result: FileResult & { ms: number }) => void
}

/** Runs every file of `queue` (in that order, as workers come free); resolves with what went wrong outside the files. */
export async function runInWorkers(queue: string[], options: PoolOptions): Promise<string[]> {
  const problems: string[] = []
  const live = new Set<ReturnType<typeof fork>>()
  const failed = (file: string, ms: number, text: string) => {
    options.onResult({ file, ok: false, text: `${text.startsWith('▶') ? '' : `▶ ${file}\n`}${text}✖ ${file}\n`, tests: 0, failed: 1, skipped: 0, ms })
  }

  /** One worker process, from its start until it exits: files from the queue, one at a time. */
  const runWorker = () => new Promise<void>((resolve) => {
    const child = fork(WORKER, [], {
      cwd: options.cwd, env: options.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: ['--import', 'tsx', `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout'],
    })
    live.add(child)
    let current: { file: string; started: number; timer?: NodeJS.Timeout; text: string; running: string | null } | null = null
    let anyFailed = false
    let killedFor: string | null = null
    const send = (message: ToWorker) => { child.send(message) }
    const next = () => {
      const file = queue.shift()
      if (file === undefined) {
        current = null
        send({ end: true })
        setTimeout(() => {
          killedFor = `a worker was still running ${EXIT_GRACE_MS / 1000} s after its last file: a test left a server, timer or connection open`
          child.kill('SIGKILL')
        }, EXIT_GRACE_MS).unref()
        return
      }
      current = { file, started: Date.now(), text: '', running: null }
      if (options.timeoutMs > 0) {
        current.timer = setTimeout(() => {
          killedFor = `timed out after ${options.timeoutMs} ms (SW_TEST_TIMEOUT_MS)`
          child.kill('SIGKILL')
        }, options.timeoutMs)
      }
      send({ file })
    }
    child.on('message', (message: FromWorker) => {
      if ('ready' in message) {
        next()
        return
      }
      if (current === null) return
      if ('progress' in message) {
        current.text += message.progress
        return
      }
      if ('started' in message) {
        current.running = message.started
        return
      }
      clearTimeout(current.timer)
      anyFailed ||= !message.ok
      options.onResult({ ...message, file: current.file, ms: Date.now() - current.started })
      next()
    })
    child.once('exit', (code, signal) => {
      live.delete(child)
      if (current) {
        clearTimeout(current.timer)
        const why = killedFor ?? `its worker exited (${signal ?? String(code)}) before the file ended`
        failed(current.file, Date.now() - current.started, `${current.text}  ✖ ${why}${current.running === null ? '' : `, in "${current.running}"`}\n`)
      } else if (killedFor) {
        problems.push(killedFor)
      } else if (code !== 0 && !anyFailed) {
        problems.push(`a worker exited with ${signal ?? String(code)} though its files passed: see its output above`)
      }
      resolve()
    })
  })

  const stop = () => { for (const child of live) child.kill('SIGKILL') }
  process.once('exit', stop)
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.workers) }, async () => {
      while (queue.length > 0) await runWorker()
    }))
  } finally {
    process.off('exit', stop)
  }
  return problems
}
