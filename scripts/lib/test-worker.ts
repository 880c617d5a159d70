/**
 * One of `npm test`'s worker processes: it runs the test files scripts/test.ts hands it, one after the other, in this
 * one process. Each file's tests become a suite named after the file, so its results, time and failures stay its own;
 * test-reporter.ts sends each file's result back as the suite ends, and the runner answers with the next file.
 * Loading the project's modules once per worker, rather than once per file, is most of the suite's saving.
 */
import path from 'node:path'
import { describe } from 'node:test'
import { pathToFileURL } from 'node:url'

/** What the runner sends: a file to run next, or that there is none left. */
export type ToWorker = { file: string } | { end: true }

/**
 * What a worker sends: that it is ready for a file; as the file runs, the report's text so far and the test begun
 * last, so that a file which hangs or kills its worker says where; and how the file went (from test-reporter.ts).
 */
export type FromWorker = { ready: true } | { progress: string } | { started: string } | FileResult

export interface FileResult {
  /** The file, as the runner named it. */
  file: string
  ok: boolean
  /** The node:test spec reporter's text of the file's tests. */
  text: string
  tests: number
  failed: number
  skipped: number
}

if (process.send) {
  let ending = false
  process.on('message', (message: ToWorker) => {
    if ('end' in message) {
      ending = true
      // The open IPC channel is what kept the test run going between files: without it node:test finishes.
      process.disconnect()
      return
    }
    describe(message.file, async () => { await import(pathToFileURL(path.resolve(message.file)).href) })
  })
  // The runner is gone (killed, say): nothing will read what this worker would report.
  process.on('disconnect', () => { if (!ending) process.exit(1) })
  process.send({ ready: true } satisfies FromWorker)
}
