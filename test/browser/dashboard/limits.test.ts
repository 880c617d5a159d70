import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import type { TestApp } from '../../helpers/app.ts'
import { getProject } from '../../../src/projects/service.ts'
import { closeBrowserTest, screenshot, signIn, startBrowserTest } from '../../helpers/browser.ts'

const PASSWORD = 'limits password 38'

describe('dashboard settings: ingest limits, in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let base: string
  let page: Page

  before(async () => {
    ;({ t, base, browser } = await startBrowserTest({ ADMIN_PASSWORD: PASSWORD }))
    page = await (await browser.newContext()).newPage()
    await signIn(page, base, PASSWORD)
  })
  after(() => closeBrowserTest({ t, browser }))

  it('sets the rate limit and a daily quota, shows today\'s usage against it, and clears both', async () => {
    await page.goto(`${base}/app#/p/${t.project.id}/settings`)
    await page.locator('#set-usage', { hasText: 'No quota: events are not counted.' }).waitFor()
    assert.equal(await page.getAttribute('#set-rate-limit', 'placeholder'), 'Server default (1000/s)')
    const steps = [['50', '5000', /^Today \(\d{4}-\d{2}-\d{2}, UTC\): 0 of 5,000 events\.$/, [50, 5000]], ['', '', 'No quota', [null, null]]] as const
    for (const [rate, quota, usage, saved] of steps) {
      await page.fill('#set-rate-limit', rate)
      await page.fill('#set-daily-quota', quota)
      await page.click('#settings button[type=submit]')
      await page.locator('#set-usage', { hasText: usage }).waitFor()
      if (rate !== '') await screenshot(page, '11-settings-limits')
      const project = await getProject(t.app.db, t.project.id)
      assert.deepEqual([project.ingestRateLimit, project.dailyEventQuota], saved)
    }
  })
})
