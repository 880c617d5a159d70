// Loaded into the benchmarked service with `node --import` (bench/lib/service.ts): the V8 heap, which /proc cannot
// show, written every 100 ms to the file SW_BENCH_HEAP_FILE names (through a private file renamed into place, so the
// bench never reads half of it): the heap now, and the largest of these samples since the process started.
import fs from 'node:fs'
import { setInterval } from 'node:timers'
import v8 from 'node:v8'

const file = process.env.SW_BENCH_HEAP_FILE
if (file) {
  let peakTotal = 0
  const sample = () => {
    const { used_heap_size: used, total_heap_size: total } = v8.getHeapStatistics()
    peakTotal = Math.max(peakTotal, total)
    try {
      fs.writeFileSync(`${file}.tmp`, JSON.stringify({ used, total, peakTotal }))
      fs.renameSync(`${file}.tmp`, file)
    } catch {
      // A full or unwritable temporary directory must not end the service being measured; the bench reads the last figure.
    }
  }
  sample()
  setInterval(sample, 100).unref()
}
