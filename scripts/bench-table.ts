/**
 * `npm run bench:table`: writes the results table of docs/performance.md, between its two marker comments, from
 * bench/results.json (what the last full `npm run bench` wrote), judged by the bench's own targets
 * (bench/lib/report.ts `evaluate`). `--check` writes nothing and exits 1 when the doc's table is not what the
 * results give, so a test holds the two together. `--doc` and `--results` name other files.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { evaluate, type Check, type Row } from '../bench/lib/report.ts'

export const START = '<!-- bench:table:start -->'
export const END = '<!-- bench:table:end -->'

/** What bench/run.ts writes to its results file, as far as the table reads it. */
export interface Results {
  quick: boolean
  seconds: number
  connections: number
  node: string
  cpus: number
  memoryGiB: number
  dataset: { sessions: number; days: number }
  rows: Row[]
}

/** The engines' columns, in order; a row of another engine is left out. */
const ENGINES = ['sqlite', 'postgres'] as const
const count = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 })
const amount = (v: number) => (Math.abs(v) >= 100 ? count : decimal).format(v)
const small = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2 })
/** A ratio: two decimals, or two significant digits below 0.1 so a small one does not read as 0. */
const times = (v: number, of: string) => `${(v < 0.1 ? small : decimal).format(v)}× ${of}`

/** The ratio a row's target judges: to the first page or the unmapped read where it has one, else to the ceiling. */
function ratioOf(row: Row): string[] {
  if (row.vsList !== undefined) return [times(row.vsList, 'first page')]
  if (row.vsUnmapped !== undefined) return [times(row.vsUnmapped, 'unmapped')]
  return row.ratio === undefined ? [] : [times(row.ratio, 'ceiling')]
}

/** A row's own figure: throughput with a ratio and p99, a search's p50, ingest's events/s, or a memory figure. */
function figure(row: Row): string {
  if (row.scenario.endsWith('(MB)')) return `${amount(row.rps)} MB`
  if (row.rssGrowthMB !== undefined) return `${amount(row.p50)} ms, RSS +${amount(row.rssGrowthMB)} MB`
  if (row.scenario.includes('events/s')) return `${amount(row.rps)} events/s`
  if (row.scenario.startsWith('search')) return `p50 ${amount(row.p50)} ms`
  return [`${amount(row.rps)} req/s`, ...ratioOf(row), `p99 ${amount(row.p99)} ms`].join(', ')
}

/** A target without the scenario it names: `p99 ≤ 5 ms: list: …` is `p99 ≤ 5 ms`, `list first page ≥ 0.25× ceiling` `≥ 0.25× ceiling`. */
export const targetOf = (check: Check): string => /(?:(?:p\d+|RSS growth) )?[≥≤][^:]*/.exec(check.target)?.[0].trim() ?? check.target

/** Whether one engine's row meets its targets: met, not met, or which are not when some are. */
function verdict(checks: readonly Check[]): string {
  const missed = checks.filter((c) => !c.pass)
  if (missed.length === 0) return checks.length === 0 ? '' : 'met'
  return missed.length === checks.length ? 'not met' : `not met: ${missed.map(targetOf).join(', ')}`
}

const isVsSqlite = (c: Check) => c.target.startsWith('PostgreSQL ≥')

/** One verdict when both engines agree (or one has none), else each engine's. */
function both(sqlite: string, postgres: string): string {
  if (sqlite === postgres || postgres === '') return sqlite
  if (sqlite === '') return postgres
  return `SQLite ${sqlite}, PostgreSQL ${postgres}`
}

/** The status of a scenario on both engines, then PostgreSQL's share of SQLite's throughput where it misses its target. */
function status(own: readonly (readonly Check[])[], vsSqlite: Check | undefined, judged: boolean): string {
  if (!judged) return own.some((c) => c.length > 0) || vsSqlite ? 'not judged (quick run)' : ''
  const [sqlite = [], postgres = []] = own
  const share = vsSqlite && !vsSqlite.pass ? `${vsSqlite.value} SQLite` : ''
  return [both(verdict(sqlite), verdict(postgres)), share].filter(Boolean).join('; ')
}

/** The table's lines: a sentence on the run, then a row a scenario, each engine's figure side by side. */
export function renderTable(results: Results): string {
  const checks = evaluate(results.rows)
  const { sessions, days } = results.dataset
  const vsSqlite = checks.find(isVsSqlite)
  const lines = [
    `\`bench/results.json\`: ${count.format(sessions)} sessions over ${days} days, ${results.seconds} s a scenario at `
      + `${results.connections} connections, Node ${results.node}, ${results.cpus} cores, ${results.memoryGiB} GiB.`
      + (vsSqlite ? ` PostgreSQL's throughput is also judged ${targetOf(vsSqlite)}: the status gives its share where it falls short.` : ''),
    '',
    '| scenario | SQLite | PostgreSQL | target | status |',
    '|---|---|---|---|---|',
  ]
  for (const scenario of new Set(results.rows.map((r) => r.scenario))) {
    const rows = ENGINES.map((engine) => results.rows.find((r) => r.engine === engine && r.scenario === scenario))
    const judged = checks.filter((c) => c.scenario === scenario)
    const own = ENGINES.map((engine) => judged.filter((c) => c.engine === engine && !isVsSqlite(c)))
    const targets = [...new Set(own.flat().map(targetOf))].join(', ')
    const cells = [scenario, ...rows.map((r) => (r ? figure(r) : '—')), targets, status(own, judged.find(isVsSqlite), !results.quick)]
    lines.push(`| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`)
  }
  return lines.join('\n')
}

/** The doc with the block between the markers replaced by `table`; throws when the markers are missing or out of order. */
export function withTable(doc: string, table: string): string {
  const start = doc.indexOf(START)
  const end = doc.indexOf(END)
  if (start < 0 || end < start) throw new Error(`the doc needs ${START} and, after it, ${END}`)
  return `${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`
}

const root = path.resolve(import.meta.dirname, '..')
export const DOC = path.join(root, 'docs', 'performance.md')
export const RESULTS = path.join(root, 'bench', 'results.json')

/** The doc as the results file says it should read: the same text when its table is up to date. */
export function expectedDoc(docPath: string, resultsPath: string): { doc: string; expected: string } {
  const doc = fs.readFileSync(docPath, 'utf8')
  const results = JSON.parse(fs.readFileSync(resultsPath, 'utf8')) as Results
  return { doc, expected: withTable(doc, renderTable(results)) }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: {
    check: { type: 'boolean', default: false },
    doc: { type: 'string', default: DOC },
    results: { type: 'string', default: RESULTS },
  } })
  const { doc, expected } = expectedDoc(values.doc, values.results)
  const name = path.relative(process.cwd(), values.doc)
  if (values.check && doc !== expected) {
    console.error(`${name}: its results table is not what ${path.relative(process.cwd(), values.results)} gives; run npm run bench:table`)
    process.exit(1)
  }
  if (!values.check && doc !== expected) {
    fs.writeFileSync(values.doc, expected)
    console.log(`${name}: results table written`)
  }
}
