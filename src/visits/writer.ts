import type { Kysely } from 'kysely'
import type { Database } from '../db/database.ts'
import { AppError } from '../errors.ts'
import { fnv1a } from '../shared/hash.ts'
import { writeBatches, type AppendResult, type WriteJob } from './write.ts'

export interface WriterOptions {
  /** Batches waiting at most; beyond it ingest answers 503 so memory stays bounded under overload. */
  maxQueued: number
  /** Most batches and events committed in one transaction: bounds how long one commit holds the writer. */
  maxGroupJobs: number
  maxGroupEvents: number
  /** Told of every committed group: a write that succeeds ends a full-disk or outage episode. */
  onCommitted?: () => void
  /**
   * Groups committed at once, each on a connection of its own (PostgreSQL; SQLite has one writer, so 1). A visit's
   * batches always share a lane, which keeps their arrival order.
   */
  lanes: number
}

export interface Writer {
  /** Resolves once the batch is committed — durably, on both engines. */
  submit(job: WriteJob): Promise<AppendResult>
  /** Stops taking jobs and waits until every accepted one is committed. */
  close(): Promise<void>
}

const DEFAULTS: WriterOptions = { maxQueued: 5_000, maxGroupJobs: 200, maxGroupEvents: 10_000, lanes: 1 }

interface Pending {
  job: WriteJob
  resolve(result: AppendResult): void
  reject(error: unknown): void
}

/**
 * Group commit: batches that arrive while a transaction is committing wait and then share the
 * next one, so one durable commit (a ~0.4 ms fsync on SQLite) serves many batches instead of
 * one each. Batches are taken in (project, session key) order — stable, so one session's batches keep
 * their arrival order — which keeps concurrent PostgreSQL writers from deadlocking.
 *
 * On PostgreSQL a group is a chain of round trips in which this process and the server take turns, each idle
 * while the other works: one lane keeps about one core busy between them. Several lanes, each its own queue
 * and group in flight, keep both busy; a visit's batches always go to the same lane (by a hash of its key).
 */
export function createWriter(db: Kysely<Database>, options: Partial<WriterOptions> = {}): Writer {
  const opts = { ...DEFAULTS, ...options }
  const lanes = Array.from({ length: Math.max(1, opts.lanes) }, () => ({ queue: [] as Pending[], draining: null as Promise<void> | null }))
  let closed = false

  const takeGroup = (queue: Pending[]): Pending[] => {
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

  const drain = async (lane: (typeof lanes)[number]): Promise<void> => {
    while (lane.queue.length > 0) {
      const group = takeGroup(lane.queue).sort((a, b) => compareJobs(a.job, b.job))
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
    lane.draining = null
  }

  return {
    submit(job) {
      if (closed) return Promise.reject(new AppError(503, 'service_unavailable', 'The service is shutting down; retry shortly.'))
      if (lanes.reduce((n, l) => n + l.queue.length, 0) >= opts.maxQueued) {
        return Promise.reject(new AppError(503, 'service_unavailable', 'Ingest is over capacity right now; retry in a few seconds.'))
      }
      const lane = lanes[laneOf(job, lanes.length)]
      if (!lane) throw new Error('no writer lane')
      return new Promise<AppendResult>((resolve, reject) => {
        lane.queue.push({ job, resolve, reject })
        // setImmediate lets the batches already read from sockets join this group.
        lane.draining ??= new Promise<void>((started) => { setImmediate(started) }).then(() => drain(lane))
      })
    },
    async close() {
      closed = true
      await Promise.all(lanes.flatMap((lane) => (lane.draining ? [lane.draining] : [])))
    },
  }
}

/** The lane of a visit's batches: a hash of its project and key, so every batch of one visit takes the same. */
const laneOf = (job: WriteJob, lanes: number): number => fnv1a(`${job.projectId}\u0000${job.seed.sessionKey}`) % lanes

/** A recording chunk weighs like a full batch of events: it can be as large as one. */
const jobWeight = (job: WriteJob | undefined): number =>
  job ? job.events.length + (job.recording?.chunks.length ?? 0) * 500 : 0

const compareJobs = (a: WriteJob, b: WriteJob): number =>
  a.projectId < b.projectId ? -1 : a.projectId > b.projectId ? 1
    : a.seed.sessionKey < b.seed.sessionKey ? -1 : a.seed.sessionKey > b.seed.sessionKey ? 1 : 0

