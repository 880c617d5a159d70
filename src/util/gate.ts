/**
 * A count of work running at once with a hard ceiling: `tryEnter` takes a place synchronously or says no, so a
 * flood is refused at once instead of queueing without bound. Whoever entered calls `leave` exactly once.
 */
export interface Gate {
  tryEnter(): boolean
  leave(): void
  readonly running: number
}

export function createGate(max: number): Gate {
  let running = 0
  return {
    tryEnter() {
      if (running >= max) return false
      running++
      return true
    },
    leave() {
      running = Math.max(0, running - 1)
    },
    get running() {
      return running
    },
  }
}
