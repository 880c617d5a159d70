import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { CLI_ACTOR, audit } from '../../../src/audit/service.ts'
import type { TestApp } from '../../helpers/app.ts'
import { closeBrowserTest, eventually, recordedVisitWithIssue, screenshot, signIn, startBrowserTest } from '../../helpers/browser.ts'
import { PAYLOAD_IMG } from './hostile.ts'

const PASSWORD = 'correct horse battery staple'
const VIEWER = 'viewer@example.com'
const VIEWER_PASSWORD = 'viewer password 1'
/** More lines than the audit page's first page (50), so it pages. */
const FILLER_LINES = 55

describe('accounts, roles and the audit trail, in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let base: string
  let owner: Page
  let viewer: Page
  let viewerContext: BrowserContext
  let visitId: string
  let issueId: string
  let inviteUrl: string
  const pageErrors: string[] = []

  const newPage = async (): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
    const page = await context.newPage()
    page.on('pageerror', (e) => pageErrors.push(e.message))
    page.on('dialog', (d) => { void d.accept() })
    return { context, page }
  }

  before(async () => {
    ;({ t, base, browser } = await startBrowserTest({ ADMIN_PASSWORD: PASSWORD }))
    await t.newProject('Blog')
    // A visit with an error (so an issue) and a ten-second recording.
    ;({ visitId, issueId } = await recordedVisitWithIssue(t, 'accounts-visit'))
    // Lines the trail pages through; their detail carries markup, which must show as text.
    for (let i = 0; i < FILLER_LINES; i++) {
      await audit(t.app.db, CLI_ACTOR, 'settings_changed', { projectId: t.project.id, detail: { fields: [PAYLOAD_IMG] } })
    }
    owner = (await newPage()).page
    ;({ context: viewerContext, page: viewer } = await newPage())
  })
  after(() => closeBrowserTest({ t, browser }))

  it('the owner signs in as admin and invites a viewer of one project, copying the invitation URL', async () => {
    await signIn(owner, base, PASSWORD)
    assert.equal(await owner.textContent('#me-email'), 'admin')
    await owner.waitForSelector('#nav-people')
    assert.ok(await owner.isVisible('#nav-audit'))
    assert.ok(await owner.isVisible('#create-project'), 'an owner makes projects')
    await owner.click('#nav-people')
    await owner.fill('#invite-email', VIEWER)
    await owner.check('#invite .scope-some')
    await owner.locator('#invite .project-ticks label', { hasText: 'Shop' }).locator('input').check()
    await owner.click('#invite button[type=submit]')
    await owner.waitForSelector('#invitation .invite-url')
    await owner.click('#invitation button.copy')
    inviteUrl = await owner.evaluate<string>('navigator.clipboard.readText()')
    assert.match(inviteUrl, new RegExp(`^${base}/app#/link/[\\w-]{43}$`))
    assert.equal(await owner.textContent('#invitation .invite-url'), inviteUrl)
    const row = owner.locator(`#people tr[data-email="${VIEWER}"]`)
    assert.equal(await row.locator('td.roles').textContent(), 'viewer on Shop')
    assert.equal(await row.locator('td').nth(2).textContent(), 'invited')
    // Refusals show where they happened: the same email again, and removing the only owner.
    await owner.fill('#invite-email', VIEWER)
    await owner.click('#invite button[type=submit]')
    await owner.locator('#invite-message', { hasText: 'already has an account' }).waitFor()
    await owner.locator('#people tr[data-email="admin"] .remove-person').click()
    await owner.locator('#people tr[data-email="admin"] [role=alert]', { hasText: 'only owner' }).waitFor()
    await screenshot(owner, 'accounts-people')
  })

  it('the viewer sets a password from the link and lands on the projects list, seeing only their project', async () => {
    await viewer.goto(inviteUrl)
    await viewer.locator('#link-greeting', { hasText: VIEWER }).waitFor()
    await viewer.fill('#new-password', VIEWER_PASSWORD)
    await viewer.fill('#new-password-again', `${VIEWER_PASSWORD}!`)
    await viewer.click('#set-password button[type=submit]')
    await viewer.locator('#link-message', { hasText: 'not the same' }).waitFor()
    await viewer.fill('#new-password-again', VIEWER_PASSWORD)
    await viewer.click('#set-password button[type=submit]')
    await viewer.waitForSelector('#projects')
    await viewer.locator('#me-email', { hasText: VIEWER }).waitFor()
    assert.deepEqual(await viewer.locator('#projects td.role').allTextContents(), ['viewer'])
    assert.equal(await viewer.locator('#projects', { hasText: 'Blog' }).count(), 0, 'no role on Blog, so no Blog')
    assert.equal(await viewer.locator('#create-project, #nav-people, #nav-audit').count(), 0)
    await viewer.click('#nav-sign-ins')
    await viewer.locator('#sign-ins tr.current', { hasText: 'this browser' }).waitFor()
    assert.equal(await viewer.locator('#sign-ins tbody tr').count(), 1)
    // The link worked once.
    const { context, page: again } = await newPage()
    await again.goto(inviteUrl)
    await again.locator('#link-error', { hasText: 'used already' }).waitFor()
    await context.close()
  })

  it('the viewer sees sessions and a replay but no Settings tab, no erase and no status buttons; a change is refused', async () => {
    await viewer.click('header.top a:has-text("Projects")')
    await viewer.click('#projects a:has-text("Shop")')
    await viewer.waitForSelector('#tab-sessions')
    assert.equal(await viewer.locator('#tab-settings').count(), 0)
    await viewer.goto(`${base}/app#/p/${t.project.id}/s/${visitId}`)
    await viewer.waitForSelector('#player .rr-controller')
    assert.equal(await viewer.locator('#delete-visit').count(), 0)
    await viewer.goto(`${base}/app#/p/${t.project.id}/issues/${issueId}`)
    await viewer.waitForSelector('#issue-title')
    assert.equal(await viewer.locator('#issue-actions button').count(), 0)
    await viewer.goto(`${base}/app#/p/${t.project.id}/api`)
    await viewer.waitForSelector('#api-key-prefix')
    assert.equal(await viewer.locator('#rotate-key, #rotate-upload-key').count(), 0)
    const answer = await viewer.evaluate<{ status: number; code: string }>(`fetch('/app/api/projects/${t.project.id}/issues/${issueId}/status', {
      method: 'POST', headers: { 'x-sessionwatch': '1', 'content-type': 'application/json' }, body: JSON.stringify({ status: 'resolved' }),
    }).then(async (r) => ({ status: r.status, code: (await r.json()).code }))`)
    assert.deepEqual(answer, { status: 403, code: 'forbidden' })
  })

  it('a moment link opens the replay paused at its second, and the button copies the second the player shows', async () => {
    await viewer.goto(`${base}/app#/p/${t.project.id}/s/${visitId}?t=4`)
    await viewer.locator('#copy-moment', { hasText: 'Copy link at 00:04' }).waitFor()
    assert.equal((await viewer.textContent('#player .rr-timeline__time'))?.trim(), '00:04')
    await viewer.click('#copy-moment')
    assert.equal(await viewer.evaluate<string>('navigator.clipboard.readText()'), `${base}/app#/p/${t.project.id}/s/${visitId}?t=4`)
    // Playing moves the button's second along with the player.
    await viewer.click('.rr-controller__btns button')
    await viewer.locator('#copy-moment', { hasText: /Copy link at 00:0[5-9]/ }).waitFor()
    await screenshot(viewer, 'accounts-moment-link')
  })

  it('the owner sees the viewer\'s replay in the audit trail, pages to older lines, and shows markup as text', async () => {
    await owner.click('#nav-audit')
    await owner.waitForSelector('#audit tbody tr')
    assert.equal(await owner.locator('#audit tbody tr').count(), 50)
    await owner.click('#audit-older')
    await eventually(async () => (await owner.locator('#audit tbody tr').count()) > 50 || undefined, 'older lines')
    assert.ok(await owner.locator('#audit td.detail', { hasText: PAYLOAD_IMG }).count() > 0)
    assert.equal(await owner.locator('#audit img').count(), 0, 'the detail is text, not markup')
    assert.equal(await owner.evaluate('window.__pwned'), undefined)
    await owner.fill('#audit-user', VIEWER)
    await owner.click('#audit-filters button[type=submit]')
    const watched = owner.locator('#audit tbody tr[data-action=replay_viewed]')
    await watched.first().waitFor()
    assert.equal(await watched.first().locator('td.actor').textContent(), VIEWER)
    assert.equal(await watched.first().locator('td.target').textContent(), visitId)
    assert.equal(await watched.first().locator('td').nth(3).textContent(), 'Shop')
    assert.equal(await owner.locator('#audit td.actor', { hasNotText: VIEWER }).count(), 0, 'only what the viewer did')
    await screenshot(owner, 'accounts-audit')
  })

  it('the owner changes the viewer\'s role, then removes them; their next click lands on the sign-in page', async () => {
    await owner.click('#nav-people')
    const row = owner.locator(`#people tr[data-email="${VIEWER}"]`)
    await row.locator('.change-role').click()
    await row.locator('.role-select').selectOption('member')
    await row.locator('.scope-all').check()
    await row.locator('.save-role').click()
    await owner.locator(`#people tr[data-email="${VIEWER}"] td.roles`, { hasText: 'member on every project' }).waitFor()
    await owner.locator(`#people tr[data-email="${VIEWER}"] .remove-person`).click()
    await eventually(async () => (await owner.locator(`#people tr[data-email="${VIEWER}"]`).count()) === 0 || undefined, 'the viewer gone from People')
    await viewer.click('header.top a:has-text("Projects")')
    await viewer.waitForSelector('#login')
    await viewerContext.close()
    assert.deepEqual(pageErrors, [])
  })
})
