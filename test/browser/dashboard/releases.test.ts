import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import type { TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { closeBrowserTest, screenshot, signIn, startBrowserTest } from '../../helpers/browser.ts'
import { PAYLOAD_IMG } from './hostile.ts'

const PASSWORD = 'correct horse battery staple'

describe('dashboard: the Releases tab, in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let base: string
  let page: Page
  const pageErrors: string[] = []

  before(async () => {
    ;({ t, base, browser } = await startBrowserTest({ ADMIN_PASSWORD: PASSWORD }))
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await signIn(page, base, PASSWORD)
  })
  after(() => closeBrowserTest({ t, browser }))

  it('shows each release\'s crash-free rates as text, its adoption, and its new issues linked to their visits', async () => {
    const release = `shop@2.0 ${PAYLOAD_IMG}`
    const visit = (key: string, user: string, events: Record<string, unknown>[]) =>
      t.ingest(batch(key, events, { release, environment: 'production', user: { id: user } }))
    await visit('release-visit-ok', 'rel-a', [{ type: 'CLICK', message: 'fine' }])
    await visit('release-visit-crash', 'rel-b', [{ type: 'ERROR', message: 'Uncaught TypeError: release boom' }])
    await page.goto(`${base}/app#/p/${t.project.id}/releases`)
    await page.waitForSelector('#releases')
    const row = page.locator('#releases .release-row', { hasText: 'shop@2.0' })
    assert.match(await row.textContent() ?? '', /50\.00 % crash-free sessions\s*50\.00 % crash-free users/)
    assert.match(await row.locator('.release-name').textContent() ?? '', /<img src=x onerror=/, 'the release name, shown literally')
    assert.equal(await page.locator('#releases img, #releases svg, #releases script').count(), 0, 'no payload became markup')
    await screenshot(page, 'releases-list')
    await row.locator('a.session-link').click()
    await page.waitForSelector('#release-adoption')
    assert.equal(await page.locator('#release-adoption .bar').count(), 1, 'one day of sessions')
    await screenshot(page, 'releases-detail')
    await page.locator('#release-issues a', { hasText: '1 visit' }).click()
    await page.locator('#page-info', { hasText: '1–1 of 1 sessions' }).waitFor()
    assert.deepEqual(pageErrors, [])
  })
})
