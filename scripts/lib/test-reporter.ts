/**
 * The node:test reporter of a test worker (test-worker.ts): node's spec reporter, cut into one block per test file and
 * sent to the runner with the file's counts as the file ends, so that files running in several workers at once print
 * whole. The worker's own summary is left out (the runner adds up the files); anything else the run reports outside
 * every file, an error after a file ended say, goes to stdout as spec prints it.
 */
import { spec as SpecReporter } from 'node:test/reporters'
import type { FromWorker, JobResult } from './test-jobs.ts'

interface TestEvent {
  type: string
  data?: { nesting?: number; name?: string; message?: string; skip?: unknown; todo?: unknown; details?: { type?: string } }
}

/** The lines of the worker's totals, which would read as the whole run's. */
const TOTALS = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$/

/** A spec reporter whose text is collected rather than written. */
function specText() {
  const reporter = new SpecReporter()
  let text = ''
  reporter.on('data', (chunk: string | Buffer) => { text += chunk.toString() })
  return { write: (event: TestEvent) => { reporter.write(event) }, text: () => text }
}

const send = (message: FromWorker) => { process.send?.(message) }

export default async function* report(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  let block = specText()
  let counts = { tests: 0, failed: 0, skipped: 0 }
  for await (const event of source) {
    const { nesting, name, message, details, skip, todo } = event.data ?? {}
    const ended = event.type === 'test:pass' || event.type === 'test:fail'
    if (event.type === 'test:diagnostic' && nesting === 0 && TOTALS.test(message ?? '')) continue
    const before = block.text().length
    block.write(event)
    if (event.type === 'test:dequeue' && nesting !== 0 && name !== undefined) send({ started: name })
    if (ended && nesting === 0 && name !== undefined) {
      const result: JobResult = { name, ok: event.type === 'test:pass', text: block.text(), ...counts }
      send(result)
      block = specText()
      counts = { tests: 0, failed: 0, skipped: 0 }
    } else {
      if (ended && details?.type !== 'suite') {
        counts.tests++
        if (event.type === 'test:fail') counts.failed++
        else if (skip !== undefined || todo !== undefined) counts.skipped++
      }
      if (block.text().length > before) send({ progress: block.text().slice(before) })
    }
  }
  if (block.text() !== '') yield block.text()
}
