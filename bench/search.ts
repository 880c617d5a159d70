/**
 * `npm run bench:search`: issue 13's search scenarios (each filter alone, then pairs: npm run bench's "search:" and
 * "search2:" rows), this checkout against another commit, on the 1M-session dataset `npm run bench` generated into
 * bench/data. The two trees' services take turns on the same dataset, round after round, so both see the machine
 * in the same moods: on a shared machine whose speed drifts by 1.5× within minutes, turns compare where two whole
 * benchmark runs 40 minutes apart cannot; the trees' order alternates from round to round. Read-only, but each
 * tree's service migrates the dataset when it starts: both trees must know its migrations (a change that adds one is
 * compared with `npm run bench -- --against`, whose trees keep a dataset each).
 *
 * Options: --against <commit> (default main; none for this checkout alone), --engines sqlite,postgres, --rounds N
 * (default 2), --seconds N measured per scenario and turn (default 3, after 1 s of warm-up), one connection, so that
 * a request's latency is the service time the targets name (≤ 20 ms for a filter, ≤ 50 ms for two), judged on the
 * median p50 of the turns as `npm run bench` judges its single p50; --scenarios <regex> runs those whose name matches
 * (`npm run bench:search -- --scenarios 'q=|url='`).
 */
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import type { Engine } from '../src/config.ts'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { startTestPostgres, type TestPostgres } from '../scripts/lib/postgres-server.ts'
import type { Dataset } from './dataset.ts'
import { load } from './lib/load.ts'
import { searchScenarios, type SearchData } from './lib/search.ts'
import { ROOT, startService } from './lib/service.ts'
import { compareTrees } from './lib/trees.ts'

const { values } = parseArgs({ options: {
  against: { type: 'string', default: 'main' }, engines: { type: 'string', default: 'sqlite,postgres' },
  rounds: { type: 'string', default: '2' }, seconds: { type: 'string', default: '3' }, scenarios: { type: 'string' },
} })
const only = values.scenarios === undefined ? null : new RegExp(values.scenarios)
const count = (name: 'rounds' | 'seconds'): number => {
  const n = Number(values[name])
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number of at least 1 (got ${JSON.stringify(values[name])})`)
  return n
}
const rounds = count('rounds')
const seconds = count('seconds')
const engines = values.engines.split(',').map((e) => e.trim())
  .map((e) => { if (e !== 'sqlite' && e !== 'postgres') throw new Error(`--engines takes sqlite and postgres (got ${JSON.stringify(e)})`); return e })
const log = (line: string) => { process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`) }
const DATA = path.join(ROOT, 'bench', 'data')

/** The dataset's database on one engine (PostgreSQL: its server, started on bench/data/pg), or why there is none. */
async function datasetUrl(engine: Engine): Promise<{ url: string; server?: TestPostgres }> {
  const where = path.join(DATA, engine === 'sqlite' ? 'bench.sqlite' : path.join('pg', 'data', 'PG_VERSION'))
  if (!fs.existsSync(where)) throw new Error(`no ${engine} dataset in ${DATA}: run \`npm run bench -- --engines ${engine}\` once to generate it`)
  if (engine === 'sqlite') return { url: `file:${path.join(DATA, 'bench.sqlite')}` }
  const server = await startTestPostgres(() => undefined, { durable: true, dataDir: path.join(DATA, 'pg') })
  return { url: server.url.replace(/\/postgres$/, '/bench'), server }
}

/**
 * What `npm run bench` recorded of its dataset: the API key, the busy day, and the search scenarios' values. Read
 * with the engine's own client, so that this checkout does not migrate the dataset before the other tree runs.
 */
async function datasetFacts(engine: Engine, url: string): Promise<{ dataset: Dataset; search: SearchData }> {
  const values = new Map<string, string>()
  if (engine === 'sqlite') {
    const db = new SQLite(url.slice('file:'.length), { readonly: true })
    try {
      for (const row of db.prepare('select key, value from meta').all() as { key: string; value: string }[]) values.set(row.key, row.value)
    } finally {
      db.close()
    }
  } else {
    const client = new pg.Client(url)
    await client.connect()
    try {
      for (const row of (await client.query<{ key: string; value: string }>('select key, value from meta')).rows) values.set(row.key, row.value)
    } finally {
      await client.end()
    }
  }
  const meta = (key: string) => {
    const value = values.get(key)
    if (value === undefined) throw new Error(`the ${engine} dataset has no ${key}: run \`npm run bench -- --engines ${engine}\` to finish it`)
    return JSON.parse(value) as unknown
  }
  return { dataset: meta('bench_dataset') as Dataset, search: meta('bench_search') as SearchData }
}

const trees = compareTrees(values.against, log)
/** Per engine and scenario, per tree, each turn's p50 and mean latency (ms). */
const measured = new Map<string, Map<string, { p50: number; mean: number }[]>>()
try {
  for (const engine of engines) {
    const { url, server } = await datasetUrl(engine)
    try {
      const { dataset, search } = await datasetFacts(engine, url)
      const headers = { authorization: `Bearer ${dataset.apiKey}` }
      const scenarios = searchScenarios(search, dataset.busyDay, false).filter(([name]) => only === null || only.test(name))
      if (scenarios.length === 0) throw new Error(`--scenarios ${values.scenarios ?? ''} matches none of the search scenarios`)
      for (let round = 1; round <= rounds; round++) {
        // Each tree goes first every other round: the machine's drift then weighs on both alike.
        for (const tree of round % 2 === 1 ? trees : [...trees].reverse()) {
          log(`${engine}, round ${round} of ${rounds}: ${tree.name}`)
          const service = await startService(url, {}, tree.root)
          try {
            for (const [name, query, status] of scenarios) {
              const route = `/api/v1/sessions?${query}`
              const probe = await fetch(`${service.url}${route}`, { headers })
              const body = await probe.text()
              if (probe.status !== status) throw new Error(`${tree.name}: ${route} answered ${probe.status}, not ${status}: ${body}`)
              await load({ url: service.url, path: route, seconds: 1, connections: 1, headers })
              const result = await load({ url: service.url, path: route, seconds, connections: 1, headers })
              // A latency of failures would pass for a fast answer: a turn counts only when every request was answered as probed.
              if (result.errors > 0 || (status === 200 && result.non2xx > 0)) {
                throw new Error(`${tree.name}: ${route} failed during the measurement (${result.errors} errors, ${result.non2xx} answers not 2xx)`)
              }
              const key = `${engine}\t${name}`
              const byTree = measured.get(key) ?? new Map<string, { p50: number; mean: number }[]>()
              byTree.set(tree.name, [...(byTree.get(tree.name) ?? []), { p50: result.p50, mean: 1000 / result.rps }])
              measured.set(key, byTree)
            }
          } finally {
            await service.stop()
          }
        }
      }
    } finally {
      await server?.stop()
    }
  }
} finally {
  for (const tree of trees) tree.cleanup?.()
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] ?? NaN : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2
}
const ms = (x: number): string => (x < 10 ? x.toFixed(1) : String(Math.round(x)))
const names = trees.map((t) => t.name)
const [first] = names
const last = names.at(-1) ?? ''
console.log(`Each turn's p50 (mean) in ms, one connection, ${rounds} round(s) of ${seconds} s; judged on the median p50 of ${last}`
  + (names.length > 1 ? `; ratio: its median p50 over ${first ?? ''}'s` : ''))
console.table([...measured].map(([key, byTree]) => {
  const [engine, scenario] = key.split('\t')
  const target = scenario?.startsWith('search2:') ? 50 : 20
  const p50 = (name: string) => median((byTree.get(name) ?? []).map((t) => t.p50))
  return {
    engine, scenario, target: `≤ ${target}`,
    ...Object.fromEntries(names.map((n) => [n, (byTree.get(n) ?? []).map((t) => `${ms(t.p50)} (${ms(t.mean)})`).join(' / ')])),
    ...(names.length > 1 && first !== undefined && { ratio: (p50(last) / p50(first)).toFixed(2) }),
    met: p50(last) <= target ? 'met' : 'NOT MET',
  }
}))
