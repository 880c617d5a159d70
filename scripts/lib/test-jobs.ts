/** What scripts/test.ts, its pool and its workers say to each other about test files. */
import type { Engine } from '../../src/config.ts'

/** One run of a test file: on the engines of the run, or on `engine` alone. */
export interface TestJob {
  file: string
  engine?: Engine
}

/** The name a job's results go by: its file, and its engine when it has one. */
export const jobName = (job: TestJob): string => (job.engine === undefined ? job.file : `${job.file} [${job.engine}]`)

/** What the runner sends a worker: a job to run next, or that there is none left. */
export type ToWorker = { job: TestJob } | { end: true }

/**
 * What a worker sends: that it is ready for a job; as the job runs, the report's text so far and the test begun
 * last, so that a job which hangs or kills its worker says where; and how the job went (from test-reporter.ts).
 */
export type FromWorker = { ready: true } | { progress: string } | { started: string } | JobResult

export interface JobResult {
  /** The job's name (jobName). */
  name: string
  ok: boolean
  /** The node:test spec reporter's text of the job's tests. */
  text: string
  tests: number
  failed: number
  skipped: number
}
