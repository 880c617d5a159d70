import autocannon, { type Request } from 'autocannon'

export interface LoadResult {
  requests: number
  rps: number
  p50: number
  p99: number
  non2xx: number
  errors: number
  seconds: number
}

export interface LoadOptions {
  url: string
  path: string
  connections?: number
  seconds: number
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  /** A fresh body per request (ingest needs unique batch ids). */
  body?: () => string
}

/** Several loads at once (one per service process); their figures add up, latencies take the worst. */
export async function loadAll(all: LoadOptions[]): Promise<LoadResult> {
  const results = await Promise.all(all.map(load))
  return {
    requests: sum(results.map((r) => r.requests)),
    rps: sum(results.map((r) => r.rps)),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    non2xx: sum(results.map((r) => r.non2xx)),
    errors: sum(results.map((r) => r.errors)),
    seconds: Math.max(...results.map((r) => r.seconds)),
  }
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0)

/** Drives HTTP load from this process with autocannon and returns the figures that matter. */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  const makeBody = opts.body
  // autocannon stops only at the end of a sample: a run shorter than a second samples at its own length.
  const sampleInt = Math.min(1000, opts.seconds * 1000)
  const result = await autocannon({
    url: opts.url,
    connections: opts.connections ?? 50,
    duration: opts.seconds,
    sampleInt,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    requests: [{
      path: opts.path,
      ...(makeBody ? { setupRequest: (request: Request): Request => ({ ...request, body: makeBody() }) } : {}),
    }],
  })
  return {
    requests: result.requests.total,
    rps: result.requests.average * 1000 / sampleInt,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    seconds: result.duration,
  }
}
