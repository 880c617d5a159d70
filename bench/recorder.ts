/**
 * What the SDK costs the pages it records: `npm run bench:recorder [-- --visits 10 --seconds 12 --against main
 * --error-visits 100 --error-buffer-ms 1000 --parallel 4]`.
 *
 * Three pages (a typical article, a heavy app that mutates all the time, a checkout form) are served from an origin
 * other than the service's and visited in Chromium without the SDK, with rrweb alone (the recorder's options, its
 * events thrown away: the floor under the recorder's cost; this checkout only), with the SDK and `record: false`, and
 * with the recorder — visits alternated between the variants and between the trees compared (this checkout, "branch", and a
 * worktree of `--against`, "main", each running its own service), medians printed side by side. Per visit: the
 * main thread's script time (CDP Performance metrics: the page's own and the SDK's), total blocking time and long
 * tasks (> 50 ms), the heavy page's own update loop's worst lateness, JS heap after a forced GC, bytes the page sent
 * to the service, the synchronous time of `pagehide` handlers, and the bytes of /sdk.js and its chunks downloaded.
 * Visitors click on every page (bench/lib/recorder-pages.ts' act), so the rage- and dead-click detectors run; the
 * `no-signals` variant (this checkout only) turns them and Core Web Vitals off, and its difference from `record: false`
 * is what they cost, printed under each page as script time and long tasks.
 * `record: 'onError'` is a further variant (this checkout only), a visit without an error: what holding costs. Then an
 * error workload (bench/lib/recorder-errors.ts): `--error-visits` short article visits, one in twenty with an error,
 * recorded whole and held until an error, and the recording bytes the service stored of each (`--error-visits 0`
 * skips it).
 * Results also go to bench/results.recorder.json. The machine is shared and noisy: compare ratios within a run.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { chromium, type Browser } from 'playwright-core'
import { CHROMIUM_ARGS } from '../test/helpers/browser.ts'
import { build } from 'esbuild'
import { rrwebPatch } from '../src/assets/rrweb-patch.ts'
import { ERROR_EVERY, errorWorkload, type ErrorWorkloadResult } from './lib/recorder-errors.ts'
import { act, BRANCH_ONLY, PAGES, RRWEB_ALONE_PATH, snippet, VARIANTS, type PageName, type Variant } from './lib/recorder-pages.ts'
import { buildSdk } from '../src/assets/bundle.ts'
import { gzipSize } from '../src/assets/budgets.ts'
import { ROOT, startService, type RunningService } from './lib/service.ts'
import { compareTrees, type Tree as BaseTree } from './lib/trees.ts'

const { values: args } = parseArgs({
  options: {
    visits: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '12' },
    against: { type: 'string', default: 'main' },
    pages: { type: 'string', default: 'article,heavy,form' },
    'error-visits': { type: 'string', default: '100' },
    'error-buffer-ms': { type: 'string', default: '1000' },
    parallel: { type: 'string', default: '4' },
  },
})
const VISITS = Number(args.visits)
const HEAVY_SECONDS = Number(args.seconds)
const PAGE_NAMES = args.pages.split(',') as PageName[]

/**
 * rrweb alone, as the recorder bundles it (src/assets/rrweb-patch.ts), started like the recorder (once the page has
 * loaded) with the recorder's options, its events thrown away: built from this checkout, measured on it only.
 */
async function rrwebAlone(): Promise<string> {
  const contents = `import { record } from '@rrweb/record'
import { RRWEB_OPTIONS } from './browser/sdk/rrweb-options.ts'
const go = () => { record({ ...RRWEB_OPTIONS, emit() {} }) }
if (document.readyState === 'complete') go(); else addEventListener('load', go)`
  const out = await build({ stdin: { contents, resolveDir: ROOT, loader: 'ts' }, bundle: true, minify: true, format: 'iife', write: false, logLevel: 'silent', plugins: [rrwebPatch] })
  return out.outputFiles[0]?.text ?? ''
}

interface Tree extends BaseTree { service?: RunningService; ingestKey?: string; apiKey?: string }

/** What the page cannot report from outside: long tasks, how long `pagehide` listeners run, the bytes it uploads. */
const PROBE = `(() => {
  const b = window.__swb = { longTasks: [], pagehideMs: 0, sent: 0 }
  // Bytes handed to fetch and sendBeacon for the service (the page itself sends nothing): what the visitor uploads.
  const size = (body) => typeof body === 'string' ? body.length : body && typeof body.size === 'number' ? body.size : body && body.byteLength ? body.byteLength : 0
  const fetch0 = window.fetch
  window.fetch = function (input, init) { if (init && init.method === 'POST') b.sent += size(init.body); return fetch0.apply(this, arguments) }
  const beacon0 = navigator.sendBeacon && navigator.sendBeacon.bind(navigator)
  if (beacon0) navigator.sendBeacon = (url, data) => { const ok = beacon0(url, data); if (ok) b.sent += size(data); return ok }
  try { new PerformanceObserver((l) => { for (const e of l.getEntries()) b.longTasks.push(e.duration) }).observe({ type: 'longtask', buffered: true }) } catch {}
  const add = EventTarget.prototype.addEventListener
  EventTarget.prototype.addEventListener = function (type, fn, opts) {
    if (type === 'pagehide' && typeof fn === 'function') {
      const timed = function (e) { const t = performance.now(); try { return fn.call(this, e) } finally { b.pagehideMs += performance.now() - t } }
      return add.call(this, type, timed, opts)
    }
    return add.call(this, type, fn, opts)
  }
})()`

interface Sample {
  scriptMs: number; tbtMs: number; longTasks: number; driftMs: number | null; inputDelayMs: number | null; heapMB: number; sentKB: number
  pagehideMs: number; sdkKB: number; replayPct: number | null; elements: number
}

/**
 * The share of the heavy page's update ticks that the service holds in the visit's recording (polled for up to 10 s
 * while the page stays open, so chunks still uploading arrive): every update replayed is 100 %.
 */
async function replayedTicks(tree: Tree, marker: string, ticks: number): Promise<number> {
  const get = async <T>(url: string) => {
    const res = await fetch(`${tree.service?.url ?? ''}${url}`, { headers: { authorization: `Bearer ${tree.apiKey ?? ''}` } })
    return (url.includes('/chunks/') ? await res.text() : await res.json()) as T
  }
  let found = 0
  for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 500))) {
    const id = (await get<{ sessions: { id: string }[] }>(`/api/v1/sessions?url=${marker}`)).sessions[0]?.id
    if (id === undefined) continue
    const seen = new Set<number>()
    for (const c of (await get<{ chunks: { id: string }[] }>(`/api/v1/sessions/${id}/recording`)).chunks) {
      for (const m of (await get<string>(`/api/v1/sessions/${id}/recording/chunks/${encodeURIComponent(c.id)}`)).matchAll(/tick-(\d+)/g)) seen.add(Number(m[1]))
    }
    found = [...seen].filter((n) => n >= 1 && n <= ticks).length
    if (found >= ticks) break
  }
  return (100 * found) / Math.max(1, ticks)
}

async function visit(browser: Browser, site: string, tree: Tree, page: PageName, variant: Variant): Promise<Sample> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  await context.addInitScript(PROBE)
  const tab = await context.newPage()
  const service = tree.service?.url ?? ''
  let sdk = 0
  tab.on('requestfinished', (r) => {
    if (r.url().startsWith(`${service}/sdk`)) void r.sizes().then((s) => { sdk += s.responseBodySize }, () => undefined)
  })
  const cdp = await context.newCDPSession(tab)
  await cdp.send('Performance.enable')
  const marker = `visit${Math.random().toString(36).slice(2, 12)}`
  await tab.goto(`${site}/${page}?variant=${variant}&tree=${encodeURIComponent(tree.name)}&${marker}`, { waitUntil: 'load' })
  await act(tab, page, HEAVY_SECONDS)
  const metrics = (await cdp.send('Performance.getMetrics')).metrics
  const metric = (name: string) => metrics.find((m) => m.name === name)?.value ?? 0
  const probe = await tab.evaluate<{ longTasks: number[]; drift: number | null; delays: number[] | null; elements: number }>(
    '({ longTasks: window.__swb.longTasks, drift: window.__drift ?? null, delays: window.__inputDelays ?? null, elements: document.getElementsByTagName("*").length })')
  await cdp.send('HeapProfiler.collectGarbage')
  const heap = await cdp.send('Runtime.getHeapUsage')
  const pagehideMs = await tab.evaluate<number>('(dispatchEvent(new PageTransitionEvent("pagehide", { persisted: false })), window.__swb.pagehideMs)')
  await tab.waitForTimeout(500)
  const sent = await tab.evaluate<number>('window.__swb.sent')
  const ticks = await tab.evaluate<number | null>('window.__ticks ?? null')
  const replayPct = variant === 'recorder' && ticks !== null ? await replayedTicks(tree, marker, ticks) : null
  await context.close()
  return {
    scriptMs: metric('ScriptDuration') * 1000,
    tbtMs: probe.longTasks.reduce((n, d) => n + Math.max(0, d - 50), 0),
    longTasks: probe.longTasks.length,
    driftMs: probe.drift,
    inputDelayMs: probe.delays && probe.delays.length > 0 ? median(probe.delays) : null,
    heapMB: heap.usedSize / 1048576,
    sentKB: sent / 1024,
    pagehideMs,
    sdkKB: sdk / 1024,
    replayPct,
    elements: probe.elements,
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length === 0 ? 0 : s.length % 2 ? s[mid] ?? 0 : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2
}

const ROWS: [keyof Sample, string, number][] = [
  ['scriptMs', 'main-thread script, ms', 0], ['tbtMs', 'total blocking time, ms', 0], ['longTasks', 'long tasks > 50 ms', 0],
  ['driftMs', 'page update loop, worst drift, ms', 0], ['inputDelayMs', 'click to handler, median ms', 1], ['heapMB', 'JS heap after GC, MB', 1],
  ['sentKB', 'bytes sent, KB', 1], ['pagehideMs', 'pagehide handlers, sync ms', 1], ['sdkKB', '/sdk.js and chunks downloaded, KB', 1],
  ['replayPct', 'update ticks in the stored replay, %', 1],
]
/** Rows measured on the heavy page only. */
const HEAVY_ONLY = new Set<keyof Sample>(['driftMs', 'inputDelayMs', 'replayPct'])

async function main(): Promise<void> {
  const compared: Tree[] = compareTrees(args.against, (line) => { process.stderr.write(`${line}\n`) }, 'sw-recorder-main-')
  const branch = compared.at(-1)
  const alone = await rrwebAlone()
  const site = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === RRWEB_ALONE_PATH) {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(alone)
      return
    }
    const name = url.pathname.slice(1) as PageName
    const tree = compared.find((t) => t.name === url.searchParams.get('tree'))
    const variant = url.searchParams.get('variant') as Variant
    if (!(name in PAGES) || !tree) {
      res.writeHead(404).end()
      return
    }
    const bufferMs = url.searchParams.get('bufferMs')
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(PAGES[name](snippet(variant, tree.service?.url ?? '', tree.ingestKey ?? '', bufferMs ? { recordBufferMs: Number(bufferMs) } : {})))
  })
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  const address = site.address()
  const siteUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })
  const results: Record<string, Record<string, Record<string, Sample[]>>> = {}
  let errors: Record<string, ErrorWorkloadResult> | null = null
  try {
    for (const tree of compared) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-recorder-db-'))
      tree.service = await startService(`sqlite:${path.join(dir, 'bench.db')}`, {}, tree.root)
      const created = execFileSync(process.execPath, [path.join(tree.root, 'bin', 'sessionwatch.mjs'), 'project', 'create', '--name', 'bench', '--domain', '127.0.0.1', '--json'],
        { cwd: tree.root, env: { PATH: process.env.PATH ?? '', DATABASE_URL: `sqlite:${path.join(dir, 'bench.db')}` }, encoding: 'utf8' })
      ;({ ingestKey: tree.ingestKey, apiKey: tree.apiKey } = JSON.parse(created) as { ingestKey: string; apiKey: string })
    }
    console.log(`recorder bench: ${PAGE_NAMES.join(', ')}; ${VISITS} visits per variant and tree, alternated; heavy page ${HEAVY_SECONDS} s`)
    const built = await buildSdk()
    const size = (text: string) => `${gzipSize(text).toLocaleString('en-US')} B`
    console.log(`this checkout's scripts, gzipped: sdk.js ${size(built.script)}, vitals.js ${size(built.vitals)}, recorder.js ${size(built.recorder)}`)
    for (const page of PAGE_NAMES) {
      for (let i = 0; i < VISITS; i++) {
        for (const tree of compared) {
          for (const variant of VARIANTS) {
            if (BRANCH_ONLY.has(variant) && tree !== branch) continue
            const sample = await visit(browser, siteUrl, tree, page, variant)
            ;(((results[page] ??= {})[tree.name] ??= {})[variant] ??= []).push(sample)
          }
        }
        process.stdout.write(`\r${page}: ${i + 1}/${VISITS} visits`)
      }
      process.stdout.write('\n')
      printPage(page, results[page] ?? {})
    }
    if (branch && Number(args['error-visits']) > 0) errors = await runErrorWorkload(browser, siteUrl, branch)
  } finally {
    await browser.close()
    site.close()
    for (const tree of compared) {
      await tree.service?.stop()
      tree.cleanup?.()
    }
  }
  const file = path.join(ROOT, 'bench', 'results.recorder.json')
  fs.writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), visits: VISITS, heavySeconds: HEAVY_SECONDS, results, errors }, null, 1)}\n`)
  console.log(`samples written to ${path.relative(ROOT, file)}`)
}

function printPage(page: PageName, byTree: Record<string, Record<string, Sample[]>>): void {
  const first = Object.values(byTree)[0]?.none?.[0]
  console.log(`\n${page} (${first?.elements.toLocaleString('en-US') ?? '?'} elements) — medians`)
  const columns = Object.entries(byTree).flatMap(([tree, variants]) => VARIANTS.map((v) => ({ label: `${tree}: ${v}`, samples: variants[v] ?? [] })))
    .filter((c) => c.samples.length > 0)
  const width = Math.max(...columns.map((c) => c.label.length), 10)
  console.log(`${''.padEnd(36)}${columns.map((c) => c.label.padStart(width + 2)).join('')}`)
  for (const [key, label, digits] of ROWS) {
    if (HEAVY_ONLY.has(key) && page !== 'heavy') continue
    const cells = columns.map((c) => {
      const values = c.samples.map((s) => s[key]).filter((v): v is number => typeof v === 'number')
      return (values.length === 0 ? '—' : median(values).toFixed(digits)).padStart(width + 2)
    })
    console.log(`${label.padEnd(36)}${cells.join('')}`)
  }
  for (const [tree, variants] of Object.entries(byTree)) {
    const script = (v: Variant) => median((variants[v] ?? []).map((s) => s.scriptMs))
    const alone = variants.rrweb ? `, rrweb alone ${(script('rrweb') / Math.max(1, script('none'))).toFixed(2)}×` : ''
    const held = variants['on-error'] ? `, record: 'onError' without an error ${(script('on-error') / Math.max(1, script('none'))).toFixed(2)}×` : ''
    console.log(`${tree}: script with the recorder ${(script('recorder') / Math.max(1, script('none'))).toFixed(2)}× the page without the SDK`
      + ` (record: false ${(script('no-recorder') / Math.max(1, script('none'))).toFixed(2)}×${alone}${held})`)
    if (variants['no-signals']) console.log(signalsLine(variants['no-signals'], variants['no-recorder'] ?? []))
  }
}

/**
 * What rage and dead clicks and Core Web Vitals cost the page: the script time of `record: false` with them on
 * against `no-signals`, as a share of the visit's script time and of the SDK's, and the long tasks of each.
 */
function signalsLine(off: Sample[], on: Sample[]): string {
  const script = (s: Sample[]) => median(s.map((x) => x.scriptMs))
  const tasks = (s: Sample[]) => median(s.map((x) => x.longTasks))
  const extra = script(on) - script(off)
  return `  rage/dead clicks and vitals: ${extra >= 0 ? '+' : ''}${extra.toFixed(1)} ms script (${((100 * extra) / Math.max(1, script(on))).toFixed(1)} % of the visit's script time), `
    + `long tasks ${tasks(on)} with them, ${tasks(off)} without`
}

/** The error workload on this checkout, whole and held, and its section of the output. */
async function runErrorWorkload(browser: Browser, siteUrl: string, tree: Tree): Promise<Record<string, ErrorWorkloadResult>> {
  const visits = Number(args['error-visits'])
  const bufferMs = Number(args['error-buffer-ms'])
  const options = {
    visits, bufferMs, parallel: Number(args.parallel),
    url: (variant: Variant, marker: string, ms: number) => `${siteUrl}/article?variant=${variant}&tree=${encodeURIComponent(tree.name)}&bufferMs=${ms}&${marker}`,
    api: async <T>(url: string) => (await fetch(`${tree.service?.url ?? ''}${url}`, { headers: { authorization: `Bearer ${tree.apiKey ?? ''}` } })).json() as Promise<T>,
  }
  const out: Record<string, ErrorWorkloadResult> = {}
  for (const variant of ['recorder', 'on-error'] as const) {
    process.stdout.write(`\rerror workload: ${variant}…`)
    out[variant] = await errorWorkload(browser, variant, options)
  }
  const whole = out.recorder
  const held = out['on-error']
  if (!whole || !held) return out
  console.log(`\n\nerror workload: ${visits} article visits of ~5 s, one in ${ERROR_EVERY} with an error; recordBufferMs ${bufferMs}, ${options.parallel} at a time`)
  console.log(`${''.padEnd(44)}${'record: true'.padStart(16)}${"record: 'onError'".padStart(20)}`)
  const row = (label: string, a: string, b: string) => { console.log(`${label.padEnd(44)}${a.padStart(16)}${b.padStart(20)}`) }
  row('visits (with an error)', `${whole.visits} (${whole.errors})`, `${held.visits} (${held.errors})`)
  row('visits with a stored recording', String(whole.recorded), String(held.recorded))
  row('stored recording bytes, KB', (whole.storedBytes / 1024).toFixed(1), (held.storedBytes / 1024).toFixed(1))
  row('replay starts before the error, median s', '—', held.replayLeadMs.length ? (median(held.replayLeadMs) / 1000).toFixed(2) : '—')
  console.log(`stored with 'onError': ${(100 * held.storedBytes / Math.max(1, whole.storedBytes)).toFixed(1)} % of record: true (target ≤ 8 %)`)
  return out
}

await main()
