/**
 * A server SDK's error on the dashboard's issue page, in Chromium: the frames as sentry-python sent them, the app's
 * with the source it read and the library's dimmed, and a chained error's cause under its `Caused by:` line.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { json, type TestApp } from '../../helpers/app.ts'
import { closeBrowserTest, screenshot, signIn, startBrowserTest } from '../../helpers/browser.ts'
import { recordedRequests, replayRecorded } from '../../helpers/sentry.ts'

const PASSWORD = 'correct horse battery staple'

describe('a server SDK\'s stack on the issue page, in Chromium', () => {
  let t: TestApp
  let base: string
  let browser: Browser
  let page: Page
  let issues: { id: string; title: string }[]

  before(async () => {
    ;({ t, base, browser } = await startBrowserTest({ ADMIN_PASSWORD: PASSWORD }))
    for (const request of recordedRequests('python-2').filter((r) => /^(grouping|chained)-/.test(r.file))) {
      assert.equal((await replayRecorded(t, 'python-2', request)).statusCode, 200)
    }
    issues = json<{ issues: { id: string; title: string }[] }>(await t.get('/api/v1/issues?limit=100')).issues
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    await signIn(page, base, PASSWORD)
  })
  after(() => closeBrowserTest({ t, browser }))

  const open = async (title: RegExp) => {
    const issue = issues.find((i) => title.test(i.title))
    assert.ok(issue, `an issue titled ${String(title)}: ${issues.map((i) => i.title).join(' | ')}`)
    await page.goto(`${base}/app#/p/${t.project.id}/issues/${issue.id}`)
    await page.waitForSelector('#issue-stack .frames')
  }

  it('shows the app\'s frames with their source and the standard library\'s dimmed', async () => {
    await open(/^json\.decoder\.JSONDecodeError: Expecting property name/)
    assert.match(await page.textContent('#issue-stack .frame:not(.library) .line.current') ?? '', /json\.loads\(raw\)/)
    assert.match(await page.textContent('#issue-stack .frame.library .frame-head') ?? '', /json\/decoder\.py/)
    assert.equal(await page.locator('#issue-stack .unmapped').count(), 0, 'no "no source map" label on an SDK\'s frames')
    await screenshot(page, '30-server-sdk-stack')
  })

  it('shows a chained error\'s cause under its Caused by line', async () => {
    await open(/^ValueError: bad order/)
    assert.equal(await page.textContent('#issue-stack .cause'), "Caused by: KeyError: 'sku'")
    await screenshot(page, '31-server-sdk-chain')
  })
})
