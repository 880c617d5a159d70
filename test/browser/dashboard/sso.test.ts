import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { freePort } from '../../../scripts/lib/postgres-server.ts'
import { startTestApp, type TestApp } from '../../helpers/app.ts'
import { launchChromium } from '../../helpers/browser.ts'
import { startTestOidc, type TestOidc } from '../../helpers/oidc.ts'

/**
 * Single sign-on end to end in Chromium: the sign-in page's button, the provider's own login and consent pages (a real
 * oidc-provider), and the callback that provisions the account with the role its claim names.
 */
describe('single sign-on, in Chromium', () => {
  let provider: TestOidc
  let t: TestApp
  let browser: Browser
  let base: string
  before(async () => {
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    provider = await startTestOidc({
      accounts: { ana: { email: 'ana@example.com', groups: ['admin'] }, vic: { email: 'vic@example.com' }, eve: { email: 'eve@elsewhere.example' } },
      redirectUri: `${base}/app/api/sso/callback`,
    })
    t = await startTestApp('sqlite', {
      PUBLIC_URL: base, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_ALLOWED_DOMAINS: 'example.com', OIDC_ROLE_CLAIM: 'groups', ADMIN_PASSWORD: 'the owner password',
    })
    await t.app.listen({ host: '127.0.0.1', port })
    browser = await launchChromium()
  })
  after(async () => {
    await browser.close()
    await t.close()
    await provider.stop()
  })

  /** Clicks the sign-in page's button and signs in at the provider as `login`: the page where it comes back. */
  async function signInWithSso(login: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage()
    await page.goto(`${base}/app`)
    await page.click('#sso')
    await page.fill('input[name=login]', login)
    await page.fill('input[name=password]', 'any')
    await page.click('button[type=submit]')
    // The provider asks to consent to the scopes once per person.
    await page.waitForURL((url) => url.href.startsWith(base) || url.pathname.includes('/interaction/'))
    if (!page.url().startsWith(base)) await page.click('button[type=submit]')
    await page.waitForURL((url) => url.href.startsWith(`${base}/app`))
    return page
  }

  it('a first sign-in provisions the account: a viewer sees projects, an admin by role claim their settings', async () => {
    const vic = await signInWithSso('vic')
    await vic.locator('#me-email', { hasText: 'vic@example.com' }).waitFor()
    await vic.locator('main a', { hasText: 'Shop' }).first().click()
    await vic.locator('#tab-sessions').waitFor()
    assert.equal(await vic.locator('#tab-settings').count(), 0, 'a viewer has no Settings tab')
    const ana = await signInWithSso('ana')
    await ana.locator('#me-email', { hasText: 'ana@example.com' }).waitFor()
    await ana.goto(`${base}/app#/p/${t.project.id}/settings`)
    await ana.locator('#tab-settings').waitFor()
  })

  it('an address outside the allowed domains comes back to the sign-in page saying why, signed out', async () => {
    const eve = await signInWithSso('eve')
    await eve.locator('#login-error', { hasText: 'eve@elsewhere.example may not sign in here' }).waitFor()
    const me = await eve.evaluate(async () => (await fetch('/app/api/me')).status)
    assert.equal(me, 401)
  })
})
