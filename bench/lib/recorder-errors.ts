/**
 * The recorder bench's error workload: short visits to the article page, one in twenty with an error, recorded
 * whole (`record: true`) and held until an error (`record: 'onError'`), and what the service stored of each, read
 * through its read API. Visits run a few at a time: this measures stored bytes, not the page's time.
 */
import type { Browser } from 'playwright-core'
import type { Variant } from './recorder-pages.ts'

/** A visit reads for this long, scrolling, and an erroring one throws at its end, then stays a second more. */
const READ_MS = 4000
const AFTER_ERROR_MS = 1000
/** One visit in ERROR_EVERY has an error. */
export const ERROR_EVERY = 20

export interface ErrorWorkloadOptions {
  visits: number
  /** recordBufferMs of the visits: small, so that a visit of seconds outlasts what is held. */
  bufferMs: number
  /** Visits open at once. */
  parallel: number
  /** The article page's URL on the bench site for a variant, with a marker the session can be found by. */
  url(variant: Variant, marker: string, bufferMs: number): string
  /** GET of the service's read API, as JSON. */
  api<T>(path: string): Promise<T>
}

export interface ErrorWorkloadResult {
  visits: number
  errors: number
  /** Visits whose recording the service stored at least one chunk of. */
  recorded: number
  storedBytes: number
  /** How long before its error each erroring visit's stored replay starts, in ms. */
  replayLeadMs: number[]
}

interface Visit { marker: string; errorAt: number | null }

async function visit(browser: Browser, url: string, marker: string, error: boolean): Promise<Visit> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const tab = await context.newPage()
  await tab.goto(url, { waitUntil: 'load' })
  for (let at = 0; at < READ_MS; at += 500) {
    await tab.mouse.wheel(0, 300)
    await tab.waitForTimeout(500)
  }
  let errorAt: number | null = null
  if (error) {
    errorAt = await tab.evaluate<number>('setTimeout(() => { throw new Error("bench error") }), Date.now()')
    await tab.waitForTimeout(AFTER_ERROR_MS)
  }
  await tab.evaluate('dispatchEvent(new PageTransitionEvent("pagehide", { persisted: false }))')
  await tab.waitForTimeout(500)
  await context.close()
  return { marker, errorAt }
}

/** Runs the workload for one variant and reads back what the service stored of its visits. */
export async function errorWorkload(browser: Browser, variant: Variant, o: ErrorWorkloadOptions): Promise<ErrorWorkloadResult> {
  const visits: Visit[] = []
  let next = 0
  const worker = async () => {
    for (let i = next++; i < o.visits; i = next++) {
      const marker = `err${variant.replace(/\W/g, '')}${Math.random().toString(36).slice(2, 12)}`
      visits.push(await visit(browser, o.url(variant, marker, o.bufferMs), marker, i % ERROR_EVERY === ERROR_EVERY - 1))
    }
  }
  await Promise.all(Array.from({ length: o.parallel }, worker))
  // Uploads still under way when a tab closed (keepalive) land within moments.
  await new Promise((r) => setTimeout(r, 2000))
  const result: ErrorWorkloadResult = { visits: visits.length, errors: 0, recorded: 0, storedBytes: 0, replayLeadMs: [] }
  for (const v of visits) {
    if (v.errorAt !== null) result.errors++
    const id = (await o.api<{ sessions: { id: string }[] }>(`/api/v1/sessions?url=${v.marker}`)).sessions[0]?.id
    if (id === undefined) continue
    const rec = await o.api<{ recording: { bytes: number }; chunks: { startedAt: string }[] }>(`/api/v1/sessions/${id}/recording`)
    result.storedBytes += rec.recording.bytes
    if (rec.chunks.length > 0) result.recorded++
    const first = rec.chunks[0]
    if (v.errorAt !== null && first) result.replayLeadMs.push(v.errorAt - Date.parse(first.startedAt))
  }
  return result
}
