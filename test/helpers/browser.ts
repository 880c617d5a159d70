import fs from 'node:fs'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import type { BuildOptions } from '../../src/app.ts'
import { startTestApp, type TestApp } from './app.ts'

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
export { eventually } from './wait.ts'

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
