import { gzipSync, strToU8 } from 'fflate'

/** gzip of a chunk's JSON, asynchronously. */
export type Compress = (json: string) => Promise<Uint8Array>

/** What the recorder needs of a Worker (injectable: unit tests run under Node, which has none). */
export interface CompressionWorker {
  postMessage(message: { id: number; json: string }): void
  onmessage: ((event: { data: { id: number; data?: ArrayBuffer } }) => void) | null
  onerror: ((event: { preventDefault(): void }) => void) | null
  terminate(): void
}

/**
 * The worker's whole program, from a blob: URL (the recorder is served from the service's origin, not the page's):
 * CompressionStream there, so its deflate does not run on the page's main thread; the bytes go back transferred.
 */
const WORKER_SOURCE = `onmessage = async (e) => {
  const { id, json } = e.data
  try {
    const bytes = new TextEncoder().encode(json)
    const source = new ReadableStream({ start(c) { c.enqueue(bytes); c.close() } })
    const data = await new Response(source.pipeThrough(new CompressionStream('gzip'))).arrayBuffer()
    postMessage({ id, data }, [data])
  } catch { postMessage({ id }) }
}`

/**
 * gzip on the page's thread: CompressionStream where the browser has it (native, but its deflate runs on this thread
 * as the stream is read: in Chromium ~300 ms of the heavy benchmark page's 12 s), else fflate on a later task. The
 * JSON goes in as bytes from TextEncoder, not through a Blob, which is copied into the browser's blob store and back.
 */
export const compressHere: Compress = (json) => {
  if (typeof CompressionStream === 'function') {
    const bytes = new TextEncoder().encode(json)
    const source = new ReadableStream<Uint8Array>({ start(controller) { controller.enqueue(bytes); controller.close() } })
    // (Typed as the bytes it is fed: the DOM's types say BufferSource, which a Uint8Array is.)
    const gzip = new CompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>
    return new Response(source.pipeThrough(gzip)).arrayBuffer().then((b) => new Uint8Array(b))
  }
  return new Promise((resolve) => { setTimeout(() => { resolve(gzipSync(strToU8(json), { level: 6 })) }, 0) })
}

/** The browser's Worker, read structurally (the SDK's unit tests run under Node, which has none). */
const WorkerClass = (globalThis as { Worker?: new (url: string) => CompressionWorker }).Worker

const startWorker = (): CompressionWorker => {
  if (!WorkerClass) throw new Error('no Worker')
  return new WorkerClass(URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' })))
}

/**
 * gzip in a Worker, started on the first chunk, where the browser has Worker and CompressionStream and the page's
 * Content-Security-Policy allows a blob: worker; on this thread otherwise, and for good from the worker's first
 * failure (a CSP refusal arrives as an error event): what was waiting for it is compressed here instead.
 */
export function makeCompressor(start: (() => CompressionWorker) | null = WorkerClass && typeof CompressionStream === 'function' ? startWorker : null): Compress {
  let worker: CompressionWorker | null | undefined
  const waiting = new Map<number, { json: string; resolve: (data: Uint8Array) => void; reject: (error: unknown) => void }>()
  let next = 0
  const here = (id: number) => {
    const job = waiting.get(id)
    if (!job) return
    waiting.delete(id)
    compressHere(job.json).then(job.resolve, job.reject)
  }
  const open = (): CompressionWorker | null => {
    try {
      const w = start?.() ?? null
      if (!w) return null
      w.onmessage = ({ data }) => {
        const job = waiting.get(data.id)
        if (!data.data || !job) {
          here(data.id)
          return
        }
        waiting.delete(data.id)
        job.resolve(new Uint8Array(data.data))
      }
      w.onerror = (event) => {
        event.preventDefault()
        w.terminate()
        worker = null
        for (const id of [...waiting.keys()]) here(id)
      }
      return w
    } catch {
      return null
    }
  }
  return (json) => {
    if (worker === undefined) worker = open()
    const w = worker
    if (!w) return compressHere(json)
    const id = next++
    return new Promise((resolve, reject) => {
      waiting.set(id, { json, resolve, reject })
      try {
        w.postMessage({ id, json })
      } catch {
        here(id)
      }
    })
  }
}
