/**
 * Rage clicks, dead clicks and Core Web Vitals in the dashboard: the list heads a visit with its frustrated click like an
 * error and filters by them, the visit page shows its vitals per page and its clicks in the error tone, and the Pages
 * tab ranks pages by their vitals and leads to their worst visits. Visitor text (page URLs, selectors) stays text.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { json, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { closeBrowserTest, eventually, screenshot, signIn, startBrowserTest } from '../../helpers/browser.ts'
import { HOSTILE_PAGE_URL, HOSTILE_SELECTOR, PAYLOAD_IMG } from './hostile.ts'

const PASSWORD = 'pages password 43'
const CHECKOUT = 'https://shop.example/checkout'
const HOME = 'https://shop.example/'

/** An attribute of every element a locator finds, in document order. */
const attributes = async (locator: ReturnType<Page['locator']>, name: string) =>
  Promise.all((await locator.all()).map((l) => l.getAttribute(name)))

describe('dashboard: frustrated clicks, vitals and the Pages tab, in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let base: string
  let page: Page
  const visits: Record<'slow' | 'fast' | 'hostile', string> = { slow: '', fast: '', hostile: '' }
  const pageErrors: string[] = []

  /** One visit of `events` (a second apart, a minute ago), its id once listed. */
  async function visit(key: string, user: string, events: Record<string, unknown>[]): Promise<string> {
    const start = Date.now() - 60_000
    const res = await t.ingest(batch(key, events.map((e, i) => ({ createdAt: start + i * 1000, ...e })), { user: { id: user } }))
    assert.equal(res.statusCode, 200, res.body)
    const id = json<{ sessions: { id: string }[] }>(await t.get(`/api/v1/sessions?user=${user}`)).sessions[0]?.id
    assert.ok(id, `the ${key} visit`)
    return id
  }

  before(async () => {
    ;({ t, base, browser } = await startBrowserTest({ ADMIN_PASSWORD: PASSWORD }))
    visits.slow = await visit('pages-slow-visit', 'slow-ann', [
      { type: 'NAVIGATION', url: CHECKOUT },
      { type: 'WEB_VITAL', name: 'LCP', value: 4200, element: 'img.hero', url: CHECKOUT },
      { type: 'WEB_VITAL', name: 'CLS', value: 0.05, url: CHECKOUT },
      { type: 'RAGE_CLICK', selector: 'button#pay', text: 'Pay now', count: 6, url: CHECKOUT },
      { type: 'NAVIGATION', url: HOME },
      { type: 'WEB_VITAL', name: 'LCP', value: 1200, url: HOME },
      { type: 'WEB_VITAL', name: 'INP', value: 300, element: 'button.menu', url: HOME },
    ])
    visits.fast = await visit('pages-fast-visit', 'fast-bob', [
      { type: 'NAVIGATION', url: CHECKOUT },
      { type: 'WEB_VITAL', name: 'LCP', value: 1100, url: CHECKOUT },
      { type: 'DEAD_CLICK', selector: 'div.menu', text: 'Open menu', url: CHECKOUT },
    ])
    visits.hostile = await visit('pages-hostile-visit', 'hostile-eve', [
      { type: 'NAVIGATION', url: HOSTILE_PAGE_URL },
      { type: 'WEB_VITAL', name: 'LCP', value: 5000, element: HOSTILE_SELECTOR, url: HOSTILE_PAGE_URL },
      { type: 'DEAD_CLICK', selector: HOSTILE_SELECTOR, text: PAYLOAD_IMG, url: HOSTILE_PAGE_URL },
    ])
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await signIn(page, base, PASSWORD)
  })
  after(() => closeBrowserTest({ t, browser }))

  it('heads a visit with its rage click like an error, and filters by rage and by dead clicks', async () => {
    await page.goto(`${base}/app#/p/${t.project.id}/sessions`)
    const row = page.locator(`#sessions li.visit[data-id="${visits.slow}"]`)
    await row.waitFor()
    assert.equal(await row.locator('.headline .badge.error').textContent(), 'Rage click')
    assert.equal(await row.locator('.headline .message').textContent(), 'Rage click ×6 on Pay now')
    assert.match(await row.getAttribute('class') ?? '', /\bhas-errors\b/, 'marked like a row with errors')
    await page.click('#quick-type-rage_click')
    await page.locator('#page-info', { hasText: '1–1 of 1 sessions' }).waitFor()
    await page.locator('#quick-type-rage_click[aria-pressed=true]').waitFor()
    await page.click('#quick-type-dead_click')
    await page.locator('#page-info', { hasText: '1–2 of 2 sessions' }).waitFor()
    assert.deepEqual((await attributes(page.locator('#sessions li.visit'), 'data-id')).sort(), [visits.fast, visits.hostile].sort())
    // A vital's rating, from the Add filter form: with the dead clicks, none had an INP; without them, the slow visit.
    await page.selectOption('#filter-kind', 'vital')
    await page.fill('#filter-value', 'INP:needs-improvement')
    await page.click('#add-filter button[type=submit]')
    await page.locator('#no-sessions').waitFor()
    await page.click('#quick-type-dead_click')
    await page.locator('#page-info', { hasText: '1–1 of 1 sessions' }).waitFor()
    assert.deepEqual(await attributes(page.locator('#sessions li.visit'), 'data-id'), [visits.slow])
    await screenshot(page, 'pages-sessions-dead-clicks')
  })

  it('shows a visit\'s vitals per page, coloured and labelled by rating, and its rage click in the error tone', async () => {
    await page.goto(`${base}/app#/p/${t.project.id}/s/${visits.slow}`)
    await page.waitForSelector('#session-vitals')
    assert.equal(await page.textContent('#session-title'), 'Rage click ×6 on Pay now', 'the title says what went wrong first')
    assert.match(await page.textContent('#session-sub') ?? '', /1 frustrated click/)
    assert.deepEqual(await page.locator('#session-vitals thead th').allTextContents(), ['Page', 'LCP', 'INP', 'CLS'])
    const cell = (row: number, column: number) => page.locator(`#session-vitals tbody tr:nth-child(${row}) td:nth-child(${column}) .vital`)
    assert.equal(await page.textContent('#session-vitals tbody tr:nth-child(1) td:nth-child(1)'), '/checkout')
    assert.equal(await cell(1, 2).textContent(), '4.2 s poor')
    assert.equal(await cell(1, 2).getAttribute('class'), 'vital poor')
    assert.equal(await cell(1, 2).getAttribute('title'), 'Element: img.hero')
    assert.equal(await cell(1, 4).textContent(), '0.050 good')
    assert.equal(await cell(2, 3).textContent(), '300 ms needs improvement')
    assert.equal(await cell(2, 3).getAttribute('class'), 'vital needs-improvement')
    const rage = page.locator('#timeline li[data-type=RAGE_CLICK]')
    assert.match(await rage.getAttribute('class') ?? '', /\berror\b/, 'in the error tone')
    assert.equal(await rage.locator('.caption').textContent(), 'Rage click ×6 on Pay now · button#pay')
    await page.click('#kind-frustration')
    assert.deepEqual(await attributes(page.locator('#timeline li.event:visible'), 'data-type'), ['RAGE_CLICK'])
    await screenshot(page, 'pages-visit-vitals')
  })

  it('shows a hostile page URL and selector as text, on the list and the visit page', async () => {
    await page.goto(`${base}/app#/p/${t.project.id}/s/${visits.hostile}`)
    await page.waitForSelector('#session-vitals')
    assert.equal(await page.getAttribute('#session-vitals .vital', 'title'), `Element: ${HOSTILE_SELECTOR}`)
    assert.equal(await page.getAttribute('#session-vitals tbody td.clip', 'title'), HOSTILE_PAGE_URL, 'the page URL, literally')
    const dead = page.locator('#timeline li[data-type=DEAD_CLICK]')
    assert.equal(await dead.locator('.caption').textContent(), `Dead click on ${PAYLOAD_IMG} · ${HOSTILE_SELECTOR}`)
    await dead.locator('.expand').click()
    assert.match(await dead.locator('.details').textContent() ?? '', /Selector button<svg onload=/)
    await page.goto(`${base}/app#/p/${t.project.id}/sessions?type=DEAD_CLICK`)
    await page.locator(`#sessions li.visit[data-id="${visits.hostile}"]`, { hasText: `Dead click on ${PAYLOAD_IMG}` }).waitFor()
    assert.equal(await page.locator('main img, main svg, main script').count(), 0, 'no payload became markup')
    assert.equal(await page.evaluate('window.__pwned'), undefined)
  })

  it('ranks pages by views or by a vital, each p75 coloured and labelled, and leads to a page\'s worst visits', async () => {
    await page.goto(`${base}/app#/p/${t.project.id}/pages`)
    await page.waitForSelector('#pages')
    await page.locator('#pages-info', { hasText: '1–3 of 3 pages' }).waitFor()
    assert.deepEqual(await attributes(page.locator('#pages tbody tr'), 'data-url'), [CHECKOUT, HOME, `https://shop.example/${PAYLOAD_IMG}`])
    const checkout = page.locator(`#pages tbody tr[data-url="${CHECKOUT}"]`)
    assert.deepEqual(await checkout.locator('td').allTextContents().then((cells) => cells.slice(0, 2)), ['/checkout', '2'])
    const lcp = checkout.locator('td[data-label=LCP]')
    assert.equal(await lcp.locator('.vital').textContent(), '4.5 s poor', 'the p75 of 1.1 s and 4.2 s, nearest rank: 4.2 s counts in the 4.5 s bucket')
    assert.equal(await lcp.locator('.vital').getAttribute('class'), 'vital poor')
    assert.equal(await lcp.locator('.spread').getAttribute('aria-label'), '1 good, 0 needs improvement, 1 poor')
    assert.equal(await checkout.locator('td[data-label=CLS] .vital').textContent(), '0.050 good')
    assert.equal(await checkout.locator('td[data-label=INP]').textContent(), '—', 'no INP was measured there')
    assert.deepEqual(await Promise.all(['Rage clicks', 'Dead clicks', 'Errors'].map((l) => checkout.locator(`td[data-label="${l}"]`).textContent())), ['1', '1', '0'])
    await screenshot(page, 'pages-tab')

    await page.selectOption('#pages-sort', 'lcp')
    await page.waitForURL(/[?&]sort=lcp/)
    await eventually(async () => ((await attributes(page.locator('#pages tbody tr'), 'data-url'))[0] === `https://shop.example/${PAYLOAD_IMG}` ? true : null), 'the slowest LCP first')
    assert.deepEqual(await attributes(page.locator('#pages tbody tr'), 'data-url'), [`https://shop.example/${PAYLOAD_IMG}`, CHECKOUT, HOME])
    assert.equal(await page.locator('#pages img, #pages svg').count(), 0, 'no page URL became markup')

    await page.locator(`#pages tbody tr[data-url="${CHECKOUT}"] a.worst-visits`).click()
    await page.waitForURL(/#\/p\/[^/]+\/sessions\?/)
    await page.locator('#page-info', { hasText: '1–1 of 1 sessions' }).waitFor()
    assert.deepEqual(await attributes(page.locator('#sessions li.visit'), 'data-id'), [visits.slow], 'the visit with the poor LCP, not the fast one')
    assert.deepEqual(await attributes(page.locator('#active-filters li.chip'), 'data-param'), ['url'], 'the page; the poor LCP filter shows pressed')
    await page.locator('[id="quick-vital-lcp:poor"][aria-pressed=true]').waitFor()
  })

  it('keeps a range of UTC days in the URL as the API spells it, and says when it holds no page', async () => {
    await page.goto(`${base}/app#/p/${t.project.id}/pages`)
    await page.waitForSelector('#pages')
    await page.fill('#pages-from', '2020-01-01')
    await page.fill('#pages-to', '2020-01-01')
    await page.click('#pages-filters button[type=submit]')
    await page.locator('#no-pages').waitFor()
    assert.match(page.url(), /from=2020-01-01&to=2020-01-02/, 'to is the day after the last')
    assert.equal(await page.inputValue('#pages-to'), '2020-01-01', 'and shown as the last day')
  })

  it('no page error in any of it', () => {
    assert.deepEqual(pageErrors, [])
  })
})
