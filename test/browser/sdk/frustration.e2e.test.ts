import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { json, type TestApp } from '../../helpers/app.ts'
import { closeBrowserTest, eventually, servePage, startBrowserTest } from '../../helpers/browser.ts'

interface Event { type: string; url?: string; message: string | null; selector?: string; text?: string; count?: number }

/** The dead-click window the page sets: short, so the test waits little; the rules are the same at any length. */
const WINDOW_MS = 1000
/** The next page answers after the window: a followed link is never dead, however slow the page it leads to. */
const NEXT_PAGE_DELAY_MS = 1500

/**
 * One of each kind of click: a button that changes its text, a link to another page, a download link (the page
 * stays, unchanged), a button that opens a menu on
 * click and one that opens it on press (as many menu libraries do), a button that does nothing and one that throws.
 */
const clicksPage = (ingestKey: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Cart</title></head><body>
<button id="works" type="button">Save</button>
<a id="next" href="/next">Next page</a>
<a id="invoice" href="/invoice.txt" download>Invoice</a>
<button id="menu" type="button">Open menu</button><ul id="menu-list" hidden><li>Orders</li></ul>
<button id="account" type="button">Account</button><ul id="account-list" hidden><li>Sign out</li></ul>
<button id="nothing" type="button">Pay now</button>
<button id="throws" type="button">Apply coupon</button>
<script>
  let saved = 0
  document.getElementById('works').addEventListener('click', (e) => { e.currentTarget.textContent = 'Saved ' + ++saved })
  document.getElementById('menu').addEventListener('click', () => { document.getElementById('menu-list').hidden = false })
  document.getElementById('account').addEventListener('pointerdown', () => { document.getElementById('account-list').hidden = false })
  document.getElementById('throws').addEventListener('click', () => { throw new Error('coupon service missing') })
</script>
<script src="/sdk.js"></script>
<script>Sessionwatch.init({ ingestKey: ${JSON.stringify(ingestKey)}, record: false, vitals: false, deadClicks: { windowMs: ${WINDOW_MS} } })</script>
</body></html>`

const nextPage = (ingestKey: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Next</title></head><body><h1>Next</h1>
<script src="/sdk.js"></script><script>Sessionwatch.init({ ingestKey: ${JSON.stringify(ingestKey)}, record: false, vitals: false })</script>
</body></html>`

describe('rage and dead clicks, end to end in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let base: string
  before(async () => { ({ t, base, browser } = await startBrowserTest()) })
  after(() => closeBrowserTest({ t, browser }))

  it('reports the button that does nothing and the one that throws as dead, never a working click; counts rage whatever the clicks did', async () => {
    const page = await browser.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await servePage(page, base, '/cart', clicksPage(t.project.ingestKey))
    await page.route(`${base}/next`, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, NEXT_PAGE_DELAY_MS))
      await route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: nextPage(t.project.ingestKey) })
    })
    await page.route(`${base}/invoice.txt`, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'invoice' }))
    await page.goto(`${base}/cart`)
    // Each click's check runs its whole window before the next click, which would end it.
    const settled = () => page.waitForTimeout(WINDOW_MS + 300)
    for (const id of ['works', 'invoice', 'menu', 'account', 'nothing', 'throws']) {
      await page.click(`#${id}`)
      await settled()
    }
    assert.equal(await page.isVisible('#menu-list'), true)
    assert.equal(await page.isVisible('#account-list'), true)
    for (const id of ['works', 'nothing']) {
      await page.click(`#${id}`, { clickCount: 6 })
      await settled()
    }
    await page.click('#next')
    await page.waitForURL(`${base}/next`)
    await page.close({ runBeforeUnload: true })

    const id = await eventually(async () => json<{ sessions: { id: string }[] }>(await t.get('/api/v1/sessions')).sessions[0]?.id, 'the visit')
    const read = async () => json<{ events: Event[] }>(await t.get(`/api/v1/sessions/${id}`)).events
    // The first page's last batch leaves as the link is followed, with the link's CLICK.
    await eventually(async () => ((await read()).some((e) => e.type === 'CLICK' && e.message?.startsWith('a#next')) || null), 'the first page\'s events')
    // The rule is that nothing more arrives: a late report would have within this.
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS))
    const events = await read()
    const signals = events.filter((e) => e.type === 'RAGE_CLICK' || e.type === 'DEAD_CLICK')
      .map((e) => [e.type, e.selector, e.text, e.count ?? null, e.url, e.message])
    assert.deepEqual(signals, [
      ['DEAD_CLICK', 'button#nothing', 'Pay now', null, `${base}/cart`, 'Dead click on Pay now'],
      ['DEAD_CLICK', 'button#throws', 'Apply coupon', null, `${base}/cart`, 'Dead click on Apply coupon'],
      ['RAGE_CLICK', 'button#works', 'Saved 1', 6, `${base}/cart`, 'Rage click ×6 on Saved 1'],
      // The burst's first click is checked: its window ends before the burst does.
      ['DEAD_CLICK', 'button#nothing', 'Pay now', null, `${base}/cart`, 'Dead click on Pay now'],
      ['RAGE_CLICK', 'button#nothing', 'Pay now', 6, `${base}/cart`, 'Rage click ×6 on Pay now'],
    ], 'the working button, the download, both menus and the slow link are never dead')
    assert.ok(events.some((e) => e.type === 'ERROR' && e.message?.includes('coupon service missing')), 'the throwing button\'s ERROR besides')
    assert.equal(events.filter((e) => e.type === 'CLICK').length, 19, 'every click recorded as CLICK too')
    assert.deepEqual(pageErrors, ['coupon service missing'], 'nothing of the SDK reached the page')
  })
})
