import fs from 'node:fs'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import type { BuildOptions } from '../../src/app.ts'
import { json, startTestApp, type TestApp } from './app.ts'
import { batch } from './factories.ts'
import { chunkUpload, rrwebEvents } from './recording.ts'
import { eventually } from './wait.ts'

/** The flags the developer guide gives for Debian's Chromium in this sandbox. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync']

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })

/** Where the browser tests leave screenshots (gitignored). */
export const ARTIFACTS = path.resolve(import.meta.dirname, '..', '..', 'test-artifacts')

/** A full-page screenshot at the page's viewport, into test-artifacts/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true })
  const file = path.join(ARTIFACTS, `${name}.png`)
  await page.screenshot({ path: file })
  return file
}

/**
 * Serves `html` at `<base><pathname>` to this page only (the service does not know the path), so a
 * test can record any page on the service's origin, where the SDK and ingest live.
 */
export async function servePage(page: Page, base: string, pathname: string, html: string): Promise<void> {
  const origin = new URL(base).origin
  await page.route((url) => url.origin === origin && url.pathname === pathname, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }))
}

/** A new tab showing `html` at `<base><pathname>` (servePage), and the errors that reach the page, as they come. */
export async function openServedPage(browser: Browser, base: string, pathname: string, html: string): Promise<{ page: Page; pageErrors: string[] }> {
  const page = await browser.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', (e) => pageErrors.push(e.message))
  await servePage(page, base, pathname, html)
  await page.goto(`${base}${pathname}`)
  return { page, pageErrors }
}

// Kept importable from here: the browser tests wait with it too.
export { eventually }

let watches = 0

/**
 * Starts watching for the page's request to a URL ending with `suffix` and gives a function that resolves once the page
 * has its whole answer. The page's own handlers of it have run by then: a fetch settles when the headers arrive, and the
 * resource entry this waits for is made at the end of the body, after them.
 */
export async function watchRequest(page: Page, suffix: string): Promise<() => Promise<void>> {
  const name = `__swRequest${++watches}`
  // Kept on the page, not returned: evaluate would wait for the promise it returns.
  await page.evaluate(`void (window.${name} = new Promise((resolve) => new PerformanceObserver((list, observer) => {
    if (list.getEntries().some((e) => e.name.endsWith(${JSON.stringify(suffix)}))) { observer.disconnect(); resolve() }
  }).observe({ type: 'resource' })))`)
  return () => page.evaluate(`window.${name}`)
}

/** Counts the page's requests whose URL `matches` that have not ended yet (answered, or failed). */
export function requestsInFlight(page: Page, matches: (url: string) => boolean): () => number {
  const open = new Set<unknown>()
  page.on('request', (request) => { if (matches(request.url())) open.add(request) })
  page.on('requestfinished', (request) => { open.delete(request) })
  page.on('requestfailed', (request) => { open.delete(request) })
  return () => open.size
}

/** Resolves once none of the requests `inFlight` counts is open and the page has drawn a frame since: laid out. */
export async function drawnAfterRequests(page: Page, inFlight: () => number): Promise<void> {
  await eventually(() => Promise.resolve(inFlight() === 0 || null), 'the page\'s requests')
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))')
}

/** Signs the page in on the dashboard's sign-in page (login: an email, or the first owner's `admin`); resolves on the projects list. */
export async function signIn(page: Page, base: string, password: string, login = 'admin'): Promise<void> {
  await page.goto(`${base}/app#/login`)
  await page.fill('#login-name', login)
  await page.fill('#password', password)
  await page.click('#login button[type=submit]')
  await page.waitForSelector('#projects')
}

export interface BrowserTest {
  t: TestApp
  /** The listening service's base URL. */
  base: string
  browser: Browser
}

/** The real app listening on a free port (SQLite), and Chromium to drive against it. */
export async function startBrowserTest(env: Record<string, string> = {}, build: Omit<BuildOptions, 'config'> = {}): Promise<BrowserTest> {
  const t = await startTestApp('sqlite', env, build)
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 })
  return { t, base, browser: await launchChromium() }
}

export async function closeBrowserTest({ t, browser }: Pick<BrowserTest, 't' | 'browser'>): Promise<void> {
  await browser.close()
  await t.close()
}

/** A visit with an error (so an issue) and a ten-second recording, once both are listed: the ids of the visit and the issue. */
export async function recordedVisitWithIssue(t: TestApp, sessionKey: string): Promise<{ visitId: string; issueId: string }> {
  const start = Date.now() - 20_000
  const res = await t.ingest(batch(sessionKey, [{ type: 'ERROR', message: 'TypeError: checkout broke', createdAt: start + 2000 }],
    { recording: [chunkUpload('c0', rrwebEvents(start, 10, 'Checkout'))] }))
  if (res.statusCode >= 300) throw new Error(res.body)
  return eventually(async () => {
    const visit = json<{ sessions: { id: string }[] }>(await t.get('/api/v1/sessions?recording=true')).sessions[0]
    const issue = json<{ issues: { id: string }[] }>(await t.get('/api/v1/issues')).issues[0]
    return visit && issue ? { visitId: visit.id, issueId: issue.id } : undefined
  }, 'the visit, its recording and its issue')
}
