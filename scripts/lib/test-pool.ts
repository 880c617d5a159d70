/**
 * Runs test jobs (test-jobs.ts) in a few worker processes (test-worker.ts) at once, each taking the next job of the
 * queue as it finishes one, so that the jobs end close together whatever their lengths. A job that runs past the
 * timeout, or whose worker dies, fails, saying which test was running; a new worker takes the rest of the queue.
 */
import { fork } from 'node:child_process'
import path from 'node:path'
import { jobName, type FromWorker, type JobResult, type TestJob, type ToWorker } from './test-jobs.ts'

const WORKER = path.join(import.meta.dirname, 'test-worker.ts')
const REPORTER = path.join(import.meta.dirname, 'test-reporter.ts')
/** How long a worker may take to exit once it has no job left: longer means a test left something running. */
const EXIT_GRACE_MS = 15_000

export interface PoolOptions {
  workers: number
  /** Milliseconds a job may run before it fails (0: no limit). */
  timeoutMs: number
  cwd: string
  env: NodeJS.ProcessEnv
  /** Each job's result as it comes, with the job and how long it took. */
  onResult: (result: JobResult & { job: TestJob; ms: number }) => void
}

/** Runs every job of `queue` (in that order, as workers come free); resolves with what went wrong outside the jobs. */
export async function runInWorkers(queue: TestJob[], options: PoolOptions): Promise<string[]> {
  const problems: string[] = []
  const live = new Set<ReturnType<typeof fork>>()

  /** One worker process, from its start until it exits: jobs from the queue, one at a time. */
  const runWorker = () => new Promise<void>((resolve) => {
    const child = fork(WORKER, [], {
      cwd: options.cwd, env: options.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: ['--import', 'tsx', `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout'],
    })
    live.add(child)
    let current: { job: TestJob; started: number; timer?: NodeJS.Timeout; text: string; running: string | null } | null = null
    let anyFailed = false
    let killedFor: string | null = null
    const send = (message: ToWorker) => { child.send(message) }
    const next = () => {
      const job = queue.shift()
      if (job === undefined) {
        current = null
        send({ end: true })
        setTimeout(() => {
          killedFor = `a worker was still running ${EXIT_GRACE_MS / 1000} s after its last job: a test left a server, timer or connection open`
          child.kill('SIGKILL')
        }, EXIT_GRACE_MS).unref()
        return
      }
      current = { job, started: Date.now(), text: '', running: null }
      if (options.timeoutMs > 0) {
        current.timer = setTimeout(() => {
          killedFor = `timed out after ${options.timeoutMs} ms (SW_TEST_TIMEOUT_MS)`
          child.kill('SIGKILL')
        }, options.timeoutMs)
      }
      send({ job })
    }
    child.on('message', (message: FromWorker) => {
      if ('ready' in message) {
        next()
      } else if (current === null) {
        // A report after the last job: its text reaches stdout through the reporter.
      } else if ('progress' in message) {
        current.text += message.progress
      } else if ('started' in message) {
        current.running = message.started
      } else {
        clearTimeout(current.timer)
        anyFailed ||= !message.ok
        options.onResult({ ...message, job: current.job, ms: Date.now() - current.started })
        next()
      }
    })
    child.once('exit', (code, signal) => {
      live.delete(child)
      if (current) {
        clearTimeout(current.timer)
        const name = jobName(current.job)
        const why = killedFor ?? `its worker exited (${signal ?? String(code)}) before the job ended`
        const text = `${current.text === '' ? `▶ ${name}\n` : current.text}  ✖ ${why}${current.running === null ? '' : `, in "${current.running}"`}\n✖ ${name}\n`
        options.onResult({ name, ok: false, text, tests: 0, failed: 1, skipped: 0, job: current.job, ms: Date.now() - current.started })
      } else if (killedFor) {
        problems.push(killedFor)
      } else if (code !== 0 && !anyFailed) {
        problems.push(`a worker exited with ${signal ?? String(code)} though its jobs passed: see its output above`)
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
