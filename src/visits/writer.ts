import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'
import { WRITER_MAX_QUEUED, WRITER_MAX_QUEUED_PER_PROJECT, WRITER_SHARED_GROUP_EVENTS } from './limits.ts'
import { AppError } from '../errors.ts'
import { fnv1a } from '../util/hash.ts'
import { writeBatches, type AppendResult, type WriteJob } from './write.ts'

export interface WriterOptions {
  /** Batches waiting at most, all projects together; beyond it ingest answers 503 so memory stays bounded under overload. */
  maxQueued: number
  /** Batches of one project waiting at most; beyond it that project's ingest answers 503 while the others' still queue. */
  maxQueuedPerProject: number
  /** Most batches and events committed in one transaction: bounds how long one commit holds the writer. */
  maxGroupJobs: number
  maxGroupEvents: number
  /**
   * Most events of one project in a group while another project waits too: a group then commits in a fraction of the
   * time a full one takes, so the other's batches are not held behind a flood.
   */
  maxSharedGroupEvents: number
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

const DEFAULTS: WriterOptions = {
  maxQueued: WRITER_MAX_QUEUED, maxQueuedPerProject: WRITER_MAX_QUEUED_PER_PROJECT, maxGroupJobs: 200, maxGroupEvents: 10_000,
  maxSharedGroupEvents: WRITER_SHARED_GROUP_EVENTS, lanes: 1,
}

interface Pending {
  job: WriteJob
  resolve(result: AppendResult): void
  reject(error: unknown): void
}

/** A lane's waiting batches, a queue per project, in the order the projects are served next. */
interface Lane {
  queues: Map<string, Pending[]>
  draining: Promise<void> | null
}

/**
 * Group commit: batches that arrive while a transaction is committing wait and then share the
 * next one, so one durable commit (a ~0.4 ms fsync on SQLite) serves many batches instead of
 * one each. A group is sorted in (project, session key) order — stable, so one session's batches keep
 * their arrival order — which keeps concurrent PostgreSQL writers from deadlocking.
 *
 * Fair between projects: each project waits in a bounded queue of its own, and a group takes a batch of each waiting
 * project in turn, the projects it served going to the back of the line, with at most maxSharedGroupEvents of one
 * project while others wait. A flooding project fills its own queue (and is refused 503 beyond it), and another
 * project's batch is committed in the next group, which the flood cannot fill.
 *
 * On PostgreSQL a group is a chain of round trips in which this process and the server take turns, each idle
 * while the other works: one lane keeps about one core busy between them. Several lanes, each its own queue
 * and group in flight, keep both busy; a visit's batches always go to the same lane (by a hash of its key).
 */
export function createWriter(db: Kysely<Database>, options: Partial<WriterOptions> = {}): Writer {
  const opts = { ...DEFAULTS, ...options }
  const lanes: Lane[] = Array.from({ length: Math.max(1, opts.lanes) }, () => ({ queues: new Map<string, Pending[]>(), draining: null }))
  /** Batches waiting, in all lanes: in all, and per project. */
  let queued = 0
  const queuedOf = new Map<string, number>()
  let closed = false

  const takeGroup = (lane: Lane): Pending[] => {
    const group: Pending[] = []
    const taken = new Map<string, number>()
    const share = lane.queues.size > 1 ? opts.maxSharedGroupEvents : opts.maxGroupEvents
    let events = 0
    for (let progress = true; progress && group.length < opts.maxGroupJobs;) {
      progress = false
      for (const [project, queue] of lane.queues) {
        const next = queue[0]
        if (!next || group.length >= opts.maxGroupJobs) continue
        const size = jobWeight(next.job)
        const mine = taken.get(project) ?? 0
        // The first batch of each project always fits, so a batch larger than the share is never stuck.
        if (group.length > 0 && (events + size > opts.maxGroupEvents || (mine > 0 && mine + size > share))) continue
        queue.shift()
        group.push(next)
        events += size
        taken.set(project, mine + size)
        progress = true
      }
    }
    for (const project of taken.keys()) {
      const queue = lane.queues.get(project)
      lane.queues.delete(project)
      if (queue && queue.length > 0) lane.queues.set(project, queue)
    }
    for (const pending of group) {
      queued--
      const left = (queuedOf.get(pending.job.projectId) ?? 1) - 1
      if (left === 0) queuedOf.delete(pending.job.projectId)
      else queuedOf.set(pending.job.projectId, left)
    }
    return group
  }

  const drain = async (lane: Lane): Promise<void> => {
    while (lane.queues.size > 0) {
      const group = takeGroup(lane).sort((a, b) => compareJobs(a.job, b.job))
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
      if (queued >= opts.maxQueued) {
        return Promise.reject(new AppError(503, 'service_unavailable', 'Ingest is over capacity right now; retry in a few seconds.'))
      }
      const mine = queuedOf.get(job.projectId) ?? 0
      if (mine >= opts.maxQueuedPerProject) {
        return Promise.reject(new AppError(503, 'service_unavailable',
          `Project ${job.projectId} has ${mine} batches waiting to be written, as many as one project may; retry in a few seconds.`))
      }
      const lane = lanes[laneOf(job, lanes.length)]
      if (!lane) throw new Error('no writer lane')
      return new Promise<AppendResult>((resolve, reject) => {
        let queue = lane.queues.get(job.projectId)
        if (!queue) lane.queues.set(job.projectId, (queue = []))
        queue.push({ job, resolve, reject })
        queued++
        queuedOf.set(job.projectId, mine + 1)
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

