/**
 * Measures for tests that hold code to a budget of tens of milliseconds. `npm test` runs every file that imports this
 * one alone, after the others, so that the work of other tests on the same cores does not count against a budget.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'

/** What `run` gives, with the milliseconds it took. */
export function timed<T>(run: () => T): { result: T; ms: number } {
  const started = performance.now()
  const result = run()
  return { result, ms: performance.now() - started }
}

/** What `run` gives, with the longest the event loop was blocked while it ran, in milliseconds. */
export async function loopBlocked<T>(run: () => Promise<T>): Promise<{ result: T; blockedMs: number }> {
  const loop = monitorEventLoopDelay({ resolution: 5 })
  loop.enable()
  try {
    const result = await run()
    return { result, blockedMs: loop.max / 1e6 }
  } finally {
    loop.disable()
  }
}
