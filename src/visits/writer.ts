import type { Kysely } from 'kysely'
import type { Database } from '../db/database.ts'
import { AppError } from '../errors.ts'
import { writeBatches, type AppendResult, type WriteJob } from './write.ts'

export interface WriterOptions {
  /** Batches waiting at most; beyond it ingest answers 503 so memory stays bounded under overload. */
  maxQueued: number
  /** Most batches and events committed in one transaction: bounds how long one commit holds the writer. */
  maxGroupJobs: number
  maxGroupEvents: number
  /** Told of every committed group: a write that succeeds ends a full-disk or outage episode. */
  onCommitted?: () => void
}

export interface Writer {
  /** Resolves once the batch is committed — durably, on both engines. */
  submit(job: WriteJob): Promise<AppendResult>
  /** Stops taking jobs and waits until every accepted one is committed. */
  close(): Promise<void>
}

const DEFAULTS: WriterOptions = { maxQueued: 5_000, maxGroupJobs: 200, maxGroupEvents: 10_000 }

interface Pending {
  job: WriteJob
  resolve(result: AppendResult): void
  reject(error: unknown): void
}

/**
 * Group commit: batches that arrive while a transaction is committing wait and then share the
 * next one, so one durable commit (a ~0.4 ms fsync on SQLite) serves many batches instead of
 * one each. Each batch runs inside its own savepoint, so one failing batch fails alone.
 * Batches are taken in (project, session key) order — stable, so one session's batches keep
 * their arrival order — which keeps concurrent PostgreSQL writers from deadlocking.
 */
export function createWriter(db: Kysely<Database>, options: Partial<WriterOptions> = {}): Writer {
  const opts = { ...DEFAULTS, ...options }
  const queue: Pending[] = []
  let draining: Promise<void> | null = null
  let closed = false

  const takeGroup = (): Pending[] => {
    let events = 0
    let n = 0
    while (n < queue.length && n < opts.maxGroupJobs) {
      const size = jobWeight(queue[n]?.job)
      if (n > 0 && events + size > opts.maxGroupEvents) break
      events += size
      n++
    }
    return queue.splice(0, n)
  }

  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      const group = takeGroup().sort((a, b) => compareJobs(a.job, b.job))
      const outcomes = await writeBatches(db, group.map((p) => p.job)).then((committed) => {
        opts.onCommitted?.()
        return committed
      }, (error: unknown) => group.map(() => ({ error })))
      outcomes.forEach((outcome, i) => {
        const pending = group[i]
        if (!pending) return
        if ('result' in outcome) pending.resolve(outcome.result)
        else pending.reject(outcome.error)
      })
    }
    draining = null
  }

  return {
    submit(job) {
      if (closed) return Promise.reject(new AppError(503, 'service_unavailable', 'The service is shutting down; retry shortly.'))
      if (queue.length >= opts.maxQueued) {
        return Promise.reject(new AppError(503, 'service_unavailable', 'Ingest is over capacity right now; retry in a few seconds.'))
      }
      return new Promise<AppendResult>((resolve, reject) => {
        queue.push({ job, resolve, reject })
        // setImmediate lets the batches already read from sockets join this group.
        draining ??= new Promise<void>((started) => { setImmediate(started) }).then(drain)
      })
    },
    async close() {
      closed = true
      await draining
    },
  }
}

/** A recording chunk weighs like a full batch of events: it can be as large as one. */
const jobWeight = (job: WriteJob | undefined): number =>
  job ? job.events.length + (job.recording?.chunks.length ?? 0) * 500 : 0

const compareJobs = (a: WriteJob, b: WriteJob): number =>
  a.projectId < b.projectId ? -1 : a.projectId > b.projectId ? 1
    : a.seed.sessionKey < b.seed.sessionKey ? -1 : a.seed.sessionKey > b.seed.sessionKey ? 1 : 0

