import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import type { TestApp } from '../../helpers/app.ts'
import { closeBrowserTest, recordedVisitWithIssue, screenshot, signIn, startBrowserTest } from '../../helpers/browser.ts'
import { PAYLOAD_IMG } from './hostile.ts'

const PASSWORD = 'collab browser owner password'

describe('assignees, comments and public replay links, in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let base: string
  let page: Page
  let visitId: string
  let issueId: string
  const pageErrors: string[] = []

  before(async () => {
    ;({ t, base, browser } = await startBrowserTest({ ADMIN_PASSWORD: PASSWORD }))
    ;({ visitId, issueId } = await recordedVisitWithIssue(t, 'collab-visit'))
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    page = await context.newPage()
    page.on('pageerror', (e) => pageErrors.push(e.message))
    page.on('dialog', (d) => { void d.accept() })
    await signIn(page, base, PASSWORD)
  })
  after(() => closeBrowserTest({ t, browser }))

  const project = () => `${base}/app#/p/${encodeURIComponent(t.project.id)}`

  it('assigns the issue to oneself, finds it under "Assigned to me", and writes and edits a comment shown as text', async () => {
    await page.goto(`${project()}/issues/${encodeURIComponent(issueId)}`)
    await page.waitForSelector('#assignee-select option:text("admin")', { state: 'attached' })
    await page.selectOption('#assignee-select', { label: 'admin' })
    await page.waitForSelector('#issue-assignee[data-saved]', { state: 'attached' })
    await page.fill('#comment-form textarea', PAYLOAD_IMG)
    await page.click('#comment-form button[type=submit]')
    await page.waitForSelector('#comment-list .comment')
    assert.equal(await page.textContent('#comment-list .comment-body'), PAYLOAD_IMG, 'markup stays text')
    await page.click('#comment-list .comment-edit')
    await page.fill('#comment-list .editing textarea', 'Broken since the last release')
    await page.click('#comment-list .editing button[type=submit]')
    await page.waitForSelector('#comment-list .comment .edited')
    assert.equal(await page.textContent('#comment-list .comment-body'), 'Broken since the last release')
    assert.equal(await page.textContent('#comment-list .comment-author'), 'admin')

    await page.goto(`${project()}/issues`)
    await page.selectOption('#filter-assignee', 'me')
    await page.waitForURL(/assignee=me/)
    await page.waitForSelector(`#issues li[data-id="${issueId}"] .issue-assignee`)
    await page.selectOption('#filter-assignee', 'none')
    await page.waitForSelector('#no-issues')
  })

  it('turns public links on in Settings, makes one on the visit, which shows the replay alone signed out, then revokes it', async () => {
    await page.goto(`${project()}/settings`)
    await page.check('#set-public-replays')
    await page.waitForSelector('#public-links li.empty')
    await page.goto(`${project()}/s/${encodeURIComponent(visitId)}`)
    await page.click('#make-public-link')
    const url = await page.inputValue('#public-link-url')
    assert.match(url, new RegExp(`^${base}/r/[\\w-]{43}$`))

    const stranger = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    const outside = await stranger.newPage()
    outside.on('pageerror', (e) => pageErrors.push(e.message))
    await outside.goto(url)
    await outside.waitForSelector('#public-player .rr-controller')
    const text = await outside.textContent('body') ?? ''
    for (const secret of ['Shop', 'checkout broke', t.project.id, visitId]) assert.ok(!text.includes(secret), `the page shows no ${secret}`)
    await screenshot(outside, 'public-replay')

    await page.goto(`${project()}/settings`)
    await page.click('#public-links .revoke-link')
    await page.waitForSelector('#public-links li:has-text("revoked")')
    const gone = await outside.goto(url)
    assert.equal(gone?.status(), 404)
    assert.match(await outside.textContent('h1') ?? '', /not available/)
    await stranger.close()
    assert.deepEqual(pageErrors, [])
  })
})
