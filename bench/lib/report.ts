import path from 'node:path'
import type { LoadResult } from './load.ts'

export interface Row extends LoadResult {
  engine: string
  scenario: string
  bytes: number
  ceiling?: number
  ratio?: number
  vsList?: number
  /** Throughput of getSession with its stacks source-mapped, against the same session without a map. */
  vsUnmapped?: number
  rssGrowthMB?: number
  /** The service's largest RSS while this scenario ran. */
  peakRssMB?: number
  cpuMsPerBatch?: number
}

export interface Check {
  target: string
  engine: string
  /** The scenario whose row the check judges, so a report can put the verdict beside its figure. */
  scenario: string
  value: string
  pass: boolean
}

/** A row that holds one memory figure (RSS or heap) in MB, where a scenario's row holds its req/s. */
export const figure = (engine: string, scenario: string, bytes: number): Row => ({
  engine, scenario, bytes: 0, requests: 0, rps: bytes / 1048576, p50: 0, p99: 0, non2xx: 0, errors: 0, seconds: 0,
})

/** The rows of memory figures, which no throughput target compares. */
const MEMORY = /^(peak|idle) (RSS|heap)/

const find = (rows: Row[], engine: string, prefix: string) => rows.find((r) => r.engine === engine && r.scenario.startsWith(prefix))

/** The promises of issue 6, checked against one run's rows. */
export function evaluate(rows: Row[]): Check[] {
  const checks: Check[] = []
  const add = (target: string, row: Row | undefined, measure: (r: Row) => number | undefined, ok: (v: number) => boolean, unit = '') => {
    const value = row && measure(row)
    if (row === undefined || value === undefined) return
    checks.push({ target, engine: row.engine, scenario: row.scenario, value: `${round(value)}${unit}`, pass: ok(value) })
  }
  for (const engine of [...new Set(rows.map((r) => r.engine))]) {
    const at = (prefix: string) => find(rows, engine, prefix)
    add('list first page ≥ 0.25× ceiling', at('list: first'), (r) => r.ratio, (v) => v >= 0.25, '×')
    add('list date= ≥ 0.8× first page', at('list: date'), (r) => r.vsList, (v) => v >= 0.8, '×')
    // Issue 16: a deep page through a cursor (after=) costs about a first page; `offset` keeps the spec's walk, reported beside it.
    add('list deep page (cursor) ≥ 0.5× first page', at('list: after='), (r) => r.vsList, (v) => v >= 0.5, '×')
    add('get 200 events ≥ 0.25× ceiling', at('get: 200 events'), (r) => r.ratio, (v) => v >= 0.25, '×')
    // Issue 12: mapping 200 errors' stacks at read time costs at most twice the unmapped read (≥ 0.5× its req/s).
    add('get 200 errors source-mapped ≥ 0.5× unmapped', at('get: 200 errors, source-mapped'), (r) => r.vsUnmapped, (v) => v >= 0.5, '×')
    // Issue 12: the issues list (100k issues) with its exact total costs no more than the sessions list (1M sessions).
    add('issues first page ≥ 1× list first page', at('issues: first'), (r) => r.vsList, (v) => v >= 1, '×')
    add('issues open ≥ 1× list first page', at('issues: open'), (r) => r.vsList, (v) => v >= 1, '×')
    add('get streamed: RSS growth ≤ 64 MB', rows.find((r) => r.engine === engine && r.rssGrowthMB !== undefined), (r) => r.rssGrowthMB,
      (v) => v <= 64, ' MB')
    add('ingest ≥ 50,000 events/s', at('ingest'), (r) => r.rps, (v) => v >= 50_000)
    // Issue 14: envelopes from an unmodified Sentry SDK at ≥ 0.8× the events/s of our own batches, in the same run.
    const batches = at('ingest: events/s')?.rps
    add('Sentry envelopes ≥ 0.8× batch ingest events/s', at('sentry envelopes'), (r) => (batches ? r.rps / batches : undefined), (v) => v >= 0.8, '×')
    for (const r of rows.filter((x) => x.engine === engine && /^(list|get): /.test(x.scenario) && x.rssGrowthMB === undefined)) {
      add(`p99 ≤ 5 ms: ${r.scenario}`, r, (x) => x.p99, (v) => v <= 5, ' ms')
    }
    // Issue 13: one request at a time, so p50 is the service time of a first page with its exact total.
    for (const r of rows.filter((x) => x.engine === engine && x.scenario.startsWith('search: '))) {
      add(`search p50 ≤ 20 ms: ${r.scenario.slice(8)}`, r, (x) => x.p50, (v) => v <= 20, ' ms')
    }
    for (const r of rows.filter((x) => x.engine === engine && x.scenario.startsWith('search2: '))) {
      add(`search of two p50 ≤ 50 ms: ${r.scenario.slice(9)}`, r, (x) => x.p50, (v) => v <= 50, ' ms')
    }
    // Release health is counted at ingest: its list is a read of counter rows, one per release and environment.
    add('releases list p50 < 20 ms', at('releases: first'), (r) => r.p50, (v) => v < 20, ' ms')
    // The pages report reads counters kept at ingest, never events.
    for (const r of rows.filter((x) => x.engine === engine && x.scenario.startsWith('pages: '))) add(`pages p50 < 50 ms: ${r.scenario.slice(7)}`, r, (x) => x.p50, (v) => v < 50, ' ms')
    add('peak RSS ≤ 150 MB', at('peak RSS'), (r) => r.rps, (v) => v <= 150, ' MB')
  }
  for (const r of rows.filter((x) => x.engine === 'postgres' && x.rssGrowthMB === undefined && !MEMORY.test(x.scenario))) {
    const base = find(rows, 'sqlite', r.scenario)
    if (base) add(`PostgreSQL ≥ 0.7× SQLite: ${r.scenario}`, r, (x) => x.rps / base.rps, (v) => v >= 0.7, '×')
  }
  return checks
}

const round = (v: number) => (Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 100) / 100)

/**
 * Where a run's results go. A quick run (CI's) writes a gitignored file: its timings come from a tiny dataset and
 * 2 s runs, so they are neither worth keeping nor allowed to leave the clone dirty.
 */
export const resultsFile = (root: string, quick: boolean): string => path.join(root, 'bench', quick ? 'results.quick.json' : 'results.json')

/** A check's verdict. A quick run judges nothing: its dataset and runs are too small for the targets to mean anything. */
export const verdict = (check: Pick<Check, 'pass'>, judged: boolean): string => (!judged ? 'not judged in quick mode' : check.pass ? 'met' : 'NOT MET')

export function printReport(rows: Row[], checks: Check[], judged: boolean): void {
  console.table(rows.map((r) => ({
    engine: r.engine, scenario: r.scenario, 'req/s': round(r.rps), 'p50 ms': r.p50, 'p99 ms': r.p99,
    'ceiling req/s': r.ceiling === undefined ? '' : round(r.ceiling), '× ceiling': r.ratio === undefined ? '' : round(r.ratio),
    '× first page': r.vsList === undefined ? '' : round(r.vsList), '× unmapped': r.vsUnmapped === undefined ? '' : round(r.vsUnmapped),
    bytes: r.bytes || '', errors: r.non2xx + r.errors, 'peak RSS MB': r.peakRssMB === undefined ? '' : round(r.peakRssMB),
  })))
  console.table(checks.map((c) => ({ target: c.target, engine: c.engine, measured: c.value, result: verdict(c, judged) })))
}

/** Every scenario of both runs, side by side: the compared tree's figures, this checkout's, and their ratio. */
export function comparisonRows(name: string, base: Row[], branch: Row[]): Record<string, string | number>[] {
  const key = (r: Row) => `${r.engine}\u0000${r.scenario}`
  const before = new Map(base.map((r) => [key(r), r]))
  const after = new Map(branch.map((r) => [key(r), r]))
  const lines: Record<string, string | number>[] = []
  // This checkout's scenarios in its order, then those only the compared tree has.
  for (const k of new Set([...after.keys(), ...before.keys()])) {
    const old = before.get(k)
    const now = after.get(k)
    const any = now ?? old
    if (!any) continue
    lines.push({
      engine: any.engine, scenario: any.scenario,
      [`${name} req/s`]: old ? round(old.rps) : '', 'branch req/s': now ? round(now.rps) : '',
      [`branch ÷ ${name}`]: old && now && old.rps > 0 ? round(now.rps / old.rps) : '',
      [`${name} p50 ms`]: old?.p50 ?? '', 'branch p50 ms': now?.p50 ?? '',
    })
  }
  return lines
}

/**
 * The rows of several rounds of one benchmark as one: each scenario's median of each figure, so one round slowed by
 * the machine (this one's runs of one tree vary by ±15% and more) does not decide a comparison.
 */
export function medianRows(rounds: readonly (readonly Row[])[]): Row[] {
  const first = rounds[0] ?? []
  return first.map((row) => {
    const same = rounds.map((r) => r.find((x) => x.engine === row.engine && x.scenario === row.scenario)).filter((x): x is Row => x !== undefined)
    const out: Row = { ...row }
    for (const [key, value] of Object.entries(row)) {
      if (typeof value !== 'number') continue
      const values = same.map((x) => x[key as keyof Row]).filter((v): v is number => typeof v === 'number').sort((a, b) => a - b)
      const mid = values.length >> 1
      ;(out as unknown as Record<string, number>)[key] = values.length % 2 === 1 ? values[mid] ?? value : ((values[mid - 1] ?? value) + (values[mid] ?? value)) / 2
    }
    return out
  })
}

export function printComparison(name: string, base: Row[], branch: Row[]): void {
  console.log(`\n${name} and this checkout (branch), side by side: req/s is events/s for ingest and MB for the RSS and heap rows; a ratio above 1 is the branch faster (for memory: larger)`)
  console.table(comparisonRows(name, base, branch))
}
