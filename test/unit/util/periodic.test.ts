import assert from 'node:assert/strict'
import { setImmediate as turn } from 'node:timers/promises'
import { describe, it } from 'node:test'
import { startPeriodic } from '../../../src/util/periodic.ts'
import { eventually } from '../../helpers/wait.ts'

const HOUR_MS = 3_600_000

/** A run that stays in flight until `finish()`; `runs` counts the runs begun and `signals` keeps what each was given. */
function heldWork() {
  const signals: AbortSignal[] = []
  let finish = (): void => undefined
  const run = (signal: AbortSignal) => {
    signals.push(signal)
    return new Promise<void>((resolve) => { finish = resolve })
  }
  return { run, signals, finish: () => { finish() }, runs: () => signals.length }
}

/** For work that must not fail: its error fails the test, through stop(). */
const unexpected = (error: unknown): never => { throw error }

const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length

describe('startPeriodic', () => {
  it('runs the work every interval', async () => {
    let runs = 0
    const periodic = startPeriodic(5, () => { runs++; return Promise.resolve() }, unexpected)
    try {
      await eventually(() => Promise.resolve(runs >= 3 || null), 'three runs', 5000, 5)
    } finally {
      await periodic.stop()
    }
  })

  it('never starts a run while one is in flight: the tick is skipped, not queued', async () => {
    const work = heldWork()
    const periodic = startPeriodic(HOUR_MS, work.run, unexpected)
    periodic.tick()
    periodic.tick()
    assert.equal(work.runs(), 1)
    work.finish()
    await eventually(() => { periodic.tick(); return Promise.resolve(work.runs() === 2 || null) }, 'a run once the first ended')
    work.finish()
    await periodic.stop()
  })

  it('stop() aborts the signal, waits for the run in flight, and no run starts after it', async () => {
    const work = heldWork()
    const periodic = startPeriodic(HOUR_MS, work.run, unexpected)
    periodic.tick()
    let stopped = false
    const stopping = periodic.stop().then(() => { stopped = true })
    assert.equal(work.signals[0]?.aborted, true, 'the run is told to stop')
    await turn()
    assert.equal(stopped, false, 'stop() waits for the run')
    work.finish()
    await stopping
    periodic.tick()
    assert.equal(work.runs(), 1)
  })

  it('hands a failed run\'s error to failed, thrown or rejected, and runs again on the next tick', async () => {
    const errors: unknown[] = []
    const thrown = new Error('thrown')
    const rejected = new Error('rejected')
    let runs = 0
    const run = (): Promise<void> => {
      runs++
      if (runs === 1) throw thrown
      return Promise.reject(rejected)
    }
    const periodic = startPeriodic(HOUR_MS, run, (error) => errors.push(error))
    periodic.tick()
    await eventually(() => Promise.resolve(errors.length === 1 || null), 'the first error')
    periodic.tick()
    await eventually(() => Promise.resolve(errors.length === 2 || null), 'the second error')
    assert.deepEqual(errors, [thrown, rejected])
    await periodic.stop()
  })

  it('keeps no process alive: its timer is unreferenced', async () => {
    const before = timeouts()
    const periodic = startPeriodic(HOUR_MS, () => Promise.resolve(), unexpected)
    try {
      assert.equal(timeouts(), before)
    } finally {
      await periodic.stop()
    }
  })
})
