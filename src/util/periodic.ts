/** Work the service repeats in the background: the webhook worker's polls, the retention sweep. */
export interface Periodic {
  /** Starts a run now, unless one is running or the work was stopped. */
  tick: () => void
  /** Stops the timer, aborts the runs' signal and waits for the run in flight. */
  stop: () => Promise<void>
}

/**
 * Runs `run` every `everyMs`, never two at once: a tick while a run is in flight is skipped rather than queued, so a
 * slow run cannot pile up behind itself. The timer keeps no process alive, and an error of a run goes to `failed`
 * (the next tick tries again), never to an unhandled rejection.
 */
export function startPeriodic(everyMs: number, run: (signal: AbortSignal) => Promise<void>, failed: (error: unknown) => void): Periodic {
  const stopping = new AbortController()
  let running: Promise<void> | null = null
  const tick = (): void => {
    if (running || stopping.signal.aborted) return
    running = (async () => { await run(stopping.signal) })().catch(failed).finally(() => { running = null })
  }
  const timer = setInterval(tick, everyMs)
  timer.unref()
  return {
    tick,
    stop: async () => {
      clearInterval(timer)
      stopping.abort()
      await running
    },
  }
}
