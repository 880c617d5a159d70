/**
 * One of `npm test`'s worker processes: it runs the jobs scripts/test.ts hands it (test-jobs.ts), one after the other,
 * in this one process. Each job's tests become a suite named after it, so its results, time and failures stay its own;
 * test-reporter.ts sends each job's result back as the suite ends, and the runner answers with the next job. Loading
 * the project's modules once per worker, rather than once per file, is most of the suite's saving.
 */
import path from 'node:path'
import { after, describe } from 'node:test'
import { pathToFileURL } from 'node:url'
import { jobName, type FromWorker, type TestJob, type ToWorker } from './test-jobs.ts'

function run({ file, engine }: TestJob): Promise<unknown> {
  const url = pathToFileURL(path.resolve(file))
  if (engine === undefined) return import(url.href)
  // The file's loop over the engines reads SW_TEST_ENGINES. A module runs once per URL: the engine in the query makes
  // each engine's job run the file afresh.
  const engines = process.env.SW_TEST_ENGINES
  process.env.SW_TEST_ENGINES = engine
  after(() => {
    if (engines === undefined) delete process.env.SW_TEST_ENGINES
    else process.env.SW_TEST_ENGINES = engines
  })
  url.searchParams.set('engine', engine)
  return import(url.href)
}

if (process.send) {
  let ending = false
  process.on('message', (message: ToWorker) => {
    if ('end' in message) {
      ending = true
      // The open IPC channel is what kept the test run going between jobs: without it node:test finishes.
      process.disconnect()
      return
    }
    describe(jobName(message.job), async () => { await run(message.job) })
  })
  // The runner is gone (killed, say): nothing will read what this worker would report.
  process.on('disconnect', () => { if (!ending) process.exit(1) })
  process.send({ ready: true } satisfies FromWorker)
}
