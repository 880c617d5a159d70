// Loaded into the benchmarked service with `node --import` (bench/lib/service.ts): the V8 heap, which /proc cannot
// show. It samples the heap's size every 100 ms in memory and, when the bench sends SIGUSR2, writes the heap now and the
// largest sample so far to the file SW_BENCH_HEAP_FILE names (through a private file renamed into place, so the bench
// never reads half of it). Nothing is written otherwise: a file written ten times a second slowed the durable ingest it
// measures (its renames go through the same file system's journal as the database's fsyncs).
import fs from 'node:fs'
import { setInterval } from 'node:timers'
import v8 from 'node:v8'

const file = process.env.SW_BENCH_HEAP_FILE
if (file) {
  let peakTotal = 0
  const sample = () => {
    const heap = v8.getHeapStatistics()
    peakTotal = Math.max(peakTotal, heap.total_heap_size)
    return heap
  }
  sample()
  setInterval(sample, 100).unref()
  process.on('SIGUSR2', () => {
    const { used_heap_size: used, total_heap_size: total } = sample()
    try {
      fs.writeFileSync(`${file}.tmp`, JSON.stringify({ used, total, peakTotal }))
      fs.renameSync(`${file}.tmp`, file)
    } catch {
      // A full or unwritable temporary directory must not end the service being measured; the bench then says so.
    }
  })
}
