import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { enqueueCommitted, issueAlert, startReceiver } from '../../helpers/alerts.ts'
import { json, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { getProject } from '../../../src/projects/service.ts'
import { findSession } from '../../../src/visits/read.ts'
import { closeBrowserTest, eventually, screenshot, servePage, startBrowserTest } from '../../helpers/browser.ts'
import { hostilePage, PAYLOAD_IMG, PAYLOAD_SVG } from './hostile.ts'

const PASSWORD = 'correct horse battery staple'

describe('dashboard, in Chromium', () => {
  let t: TestApp
  let browser: Browser
  let base: string
  let context: BrowserContext
  let page: Page
  let sessionId: string
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  const dialogs: string[] = []
  const pageErrors: string[] = []

  before(async () => {
    // A webhook receiver on this machine: allowed by WEBHOOK_ALLOW_PRIVATE; the worker polls often.
    receiver = await startReceiver([200])
    ;({ t, base, browser } = await startBrowserTest({ ADMIN_PASSWORD: PASSWORD, WEBHOOK_ALLOW_PRIVATE: 'true', DEMO: 'true' }, { webhooks: { pollMs: 100 } }))
    sessionId = await recordHostileVisit()
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
    page = await context.newPage()
    page.on('dialog', (d) => {
      dialogs.push(`${d.type()}: ${d.message()}`)
      void (d.type() === 'confirm' ? d.accept() : d.dismiss())
    })
    page.on('pageerror', (e) => pageErrors.push(e.message))
  })
  after(async () => {
    await closeBrowserTest({ t, browser })
    await receiver.close()
  })

  /** A visit whose every visitor-controlled field carries a script-injection payload, recorded by the SDK. */
  async function recordHostileVisit(): Promise<string> {
    const visitor = await browser.newContext({ userAgent: `Mozilla/5.0 ${PAYLOAD_IMG} Chrome/140.0` })
    const shop = await visitor.newPage()
    await servePage(shop, base, '/shop', hostilePage(t.project.ingestKey))
    await shop.goto(`${base}/shop?utm_source=${encodeURIComponent(PAYLOAD_SVG)}`)
    await shop.waitForFunction('Sessionwatch.stats().recording !== null')
    await shop.mouse.move(50, 50) // an idle page sends no chunk until it changes or closes
    await shop.waitForFunction('Sessionwatch.stats().recording !== null && Sessionwatch.stats().recording.chunks >= 1')
    // Not a wait for anything: a gap the recording must show. A jump to the navigation lands half a second after it,
    // and must still land before the click.
    await shop.waitForTimeout(800)
    await shop.click('#boom')
    await shop.mouse.move(200, 150)
    await shop.waitForFunction('Sessionwatch.stats().recording.chunks >= 2')
    // Activity after the error (thrown 400 ms after the click) has reached the service, so the
    // recording runs past it: an event's time is corrected by its batch's transit time, and on a
    // busy machine that alone moved the error past a recording that ended 500 ms after the click.
    await shop.waitForFunction('Sessionwatch.stats().sent >= 5') // navigation, click, report, HTTP error, error
    // Not a wait for anything either: the recording must go on half a second past the error.
    await shop.waitForTimeout(500)
    // And a chunk holds that activity: a third chunk could leave before a last mouse move was recorded, and the
    // replay then ended 0.3 s after the error (a clean-clone CI run of 2026-11-26). A chunk cut after the first change
    // was counted holds it; the second change makes that chunk.
    const chunks = await shop.evaluate<number>('Sessionwatch.stats().recording.chunks')
    await shop.evaluate("document.body.append('after the error')")
    await shop.waitForFunction(`Sessionwatch.stats().recording.chunks >= ${chunks + 1}`)
    await shop.evaluate("document.body.append(' and later')")
    await shop.waitForFunction(`Sessionwatch.stats().recording.chunks >= ${chunks + 2}`)
    await visitor.close()
    return eventually(async () => {
      const list = json<{ sessions: { id: string; events: { errors: number } }[] }>(await t.get('/api/v1/sessions'))
      const s = list.sessions.find((x) => x.events.errors >= 2)
      return s?.id
    }, 'the hostile session with its errors')
  }

  it('signs in: a wrong password is refused, the right one opens the projects page', async () => {
    const res = await page.goto(`${base}/app`)
    assert.match(res?.headers()['content-security-policy'] ?? '', /script-src 'self'/)
    await page.waitForSelector('#login')
    await page.fill('#login-name', 'admin')
    await page.fill('#password', 'wrong password')
    await page.click('#login button[type=submit]')
    // Locators, not waitForFunction: the dashboard's CSP forbids the eval that string predicates need.
    await page.locator('#login-error', { hasText: /./ }).waitFor()
    assert.match(await page.textContent('#login-error') ?? '', /not right/)
    await screenshot(page, '01-sign-in')
    await page.fill('#password', PASSWORD)
    await page.click('#login button[type=submit]')
    await page.waitForSelector('#projects')
    assert.match(await page.textContent('#projects') ?? '', /Shop/)
    await screenshot(page, '02-projects')
  })

  it('creates a project and shows its API key once, which then reads the API', async () => {
    await page.fill('#new-name', 'Second shop')
    await page.fill('#new-domain', 'second.example')
    await page.click('#create-project button[type=submit]')
    await page.waitForSelector('#api-key')
    const key = (await page.textContent('#api-key')) ?? ''
    assert.match(key, /^sw_api_/)
    const res = await fetch(`${base}/api/v1/sessions`, { headers: { authorization: `Bearer ${key}` } })
    assert.equal(res.status, 200)
    assert.equal((await res.json() as { project: { name: string } }).project.name, 'Second shop')
    // The upload key, shown once beside it: it uploads maps (the empty map is refused, the key taken) and reads nothing.
    const uploadKey = (await page.textContent('#upload-key')) ?? ''
    assert.match(uploadKey, /^sw_upl_/)
    const upload = await fetch(`${base}/upload/v1/sourcemaps?url=https://second.example/app.js`, { method: 'POST', headers: { authorization: `Bearer ${uploadKey}` }, body: '{}' })
    assert.equal(upload.status, 400)
    assert.equal((await fetch(`${base}/api/v1/sessions`, { headers: { authorization: `Bearer ${uploadKey}` } })).status, 401)
  })

  it('API tab: rotates the key, copies it and a curl command that work', async () => {
    await page.goto(`${base}/app#/p/${t.project.id}/api`)
    await page.waitForSelector('#api-key-prefix')
    assert.match(await page.textContent('#sdk-snippet') ?? '', new RegExp(t.project.ingestKey))
    const dsn = `${base.replace('://', `://${t.project.dsnKey}@`)}/${t.project.sentryProjectId}`
    assert.equal(await page.textContent('#sentry-dsn'), dsn, 'the Sentry DSN, on the address the dashboard is open at')
    assert.match(await page.textContent('#sentry-snippet') ?? '', new RegExp(`dsn: '${dsn}'`))
    await page.click('#rotate-key')
    await page.waitForSelector('#api-key')
    assert.ok(dialogs.some((d) => d.startsWith('confirm')), 'rotation asks first')
    await page.click('#api-key-box button.copy')
    const copied = await page.evaluate<string>('navigator.clipboard.readText()')
    assert.match(copied, /^sw_api_/)
    assert.equal((await t.get('/api/v1/sessions', t.project.apiKey)).statusCode, 401, 'the old key stopped working')
    const list = await fetch(`${base}/api/v1/sessions`, { headers: { authorization: `Bearer ${copied}` } })
    assert.equal(list.status, 200)
    assert.ok((await list.json() as { sessions: { id: string }[] }).sessions.some((s) => s.id === sessionId))
    assert.ok((await page.textContent('#curl-list'))?.includes(copied), 'the curl example carries the new key')
    await page.waitForSelector('#upload-key-prefix')
    await page.click('#rotate-upload-key')
    await page.waitForSelector('#upload-key')
    const uploadKey = (await page.textContent('#upload-key')) ?? ''
    assert.match(uploadKey, /^sw_upl_/)
    assert.ok((await page.textContent('#upload-cli'))?.includes(`SESSIONWATCH_UPLOAD_KEY=${uploadKey}`), 'the CI example carries the new upload key')
    assert.equal((await t.get('/api/v1/sessions', copied)).statusCode, 200, 'rotating the upload key leaves the API key')
    await screenshot(page, '03-api-tab')
  })

  it('settings: changes the retention', async () => {
    await page.click('#tab-settings')
    await page.fill('#set-retention', '60')
    await page.click('#settings button[type=submit]')
    await page.locator('#settings-message', { hasText: '60 days' }).waitFor()
    await screenshot(page, '04-settings')
  })

  it('settings: adds a webhook, logs its delivery with the issue title as text, and removes it', async () => {
    await page.fill('#webhook-url', 'ftp://files.example/hook')
    await page.click('#add-webhook button[type=submit]')
    await page.locator('#webhook-message.error', { hasText: 'url must use http or https, not ftp' }).waitFor()
    await page.fill('#webhook-url', receiver.url)
    await page.click('#add-webhook button[type=submit]')
    await page.locator('#webhooks li', { hasText: receiver.url }).waitFor()
    const secret = await page.textContent('#webhook-secret code') ?? ''
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'the signing secret is shown once, after adding')
    await page.locator('#no-deliveries').waitFor()
    await enqueueCommitted(t.app.db, issueAlert(t.project.id, { issue: { title: `Checkout failed ${PAYLOAD_IMG}` } }))
    await eventually(() => Promise.resolve(receiver.received.length === 1 ? true : null), 'the webhook delivery')
    await eventually(async () => {
      await page.click('#refresh-deliveries')
      return (await page.locator('#deliveries tr[data-status=delivered]').count()) === 1 ? true : null
    }, 'the delivered row in the log')
    assert.equal(await page.textContent('#deliveries .issue-link'), `Checkout failed ${PAYLOAD_IMG}`, 'the title is shown literally')
    assert.equal(await page.locator('#webhook-log img').count(), 0, 'no title became markup')
    assert.match(await page.textContent('#deliveries tbody tr') ?? '', /New issue.*delivered.*1.*HTTP 200/)
    const [delivery] = receiver.received
    const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`${String(delivery?.headers['webhook-id'])}.${String(delivery?.headers['webhook-timestamp'])}.${delivery?.body ?? ''}`).digest('base64')
    assert.equal(delivery?.headers['webhook-signature'], `v1,${expected}`, 'signed with the secret shown')
    await screenshot(page, '04-settings-webhooks')
    await page.click('#webhooks .remove-webhook')
    await page.locator('#no-webhooks').waitFor()
    assert.ok(dialogs.some((d) => d.startsWith('confirm: Remove the webhook')), 'removing asks first')
  })

  it('sessions list: what broke, shown as text, and the errors-only and recording filters', async () => {
    await t.ingest({ sessionKey: 'calm-visit-0001', batchId: 'calm-1', events: [{ type: 'CLICK', message: 'fine' }] })
    await page.click('#tab-sessions')
    await page.waitForSelector('#sessions')
    assert.equal(await page.locator('#sessions li.visit').count(), 2)
    assert.match(await page.textContent('#page-info') ?? '', /of 2 sessions/)
    const hostile = page.locator(`#sessions li.visit[data-id="${sessionId}"]`)
    assert.ok((await hostile.textContent())?.includes(PAYLOAD_SVG), 'the report in the row, literally')
    assert.equal(await page.locator('#sessions img, #sessions svg, #sessions script').count(), 0, 'no payload became markup')
    await page.click('#quick-errors-true')
    await eventually(async () => ((await page.locator('#sessions li.visit').count()) === 1 ? true : null), 'the errors-only list')
    await page.click('#quick-recording-true')
    await page.waitForSelector('#sessions .replay-link')
    await page.locator('#page-info', { hasText: '1–1 of 1 sessions' }).waitFor()
    await screenshot(page, '05-sessions')
    // A filter value from a link is text in its chip, and the search box's value is text too.
    await page.goto(`${base}/app#/p/${t.project.id}/sessions?user=${encodeURIComponent(PAYLOAD_IMG)}&q=${encodeURIComponent(PAYLOAD_SVG)}`)
    await page.locator('#active-filters li.chip[data-param=user]', { hasText: PAYLOAD_IMG }).waitFor()
    assert.equal(await page.inputValue('#search-q'), PAYLOAD_SVG)
    assert.equal(await page.locator('#filters img, #filters svg, #active-filters img, #active-filters svg').count(), 0)
  })

  it('pages through the sessions list 50 at a time, and filters by day', async () => {
    const second = await t.app.db.selectFrom('projects').select(['id', 'ingest_key']).where('name', '=', 'Second shop').executeTakeFirstOrThrow()
    for (let i = 0; i < 51; i++) {
      await t.app.inject({
        method: 'POST', url: '/ingest/v1/batch', headers: { 'x-ingest-key': second.ingest_key },
        payload: batch(`paging-${i}-visit`, [{ type: 'CLICK', message: `visit ${i}` }]),
      })
    }
    await page.goto(`${base}/app#/p/${second.id}/sessions`)
    await page.locator('#page-info', { hasText: '1–50 of 51 sessions' }).waitFor()
    assert.equal(await page.locator('#sessions li.visit').count(), 50)
    await page.click('#next')
    await page.locator('#page-info', { hasText: '51–51 of 51 sessions' }).waitFor()
    assert.equal(await page.isDisabled('#next'), true)
    await page.click('#prev')
    await page.locator('#page-info', { hasText: '1–50 of 51 sessions' }).waitFor()
    const byDay = async (day: string) => {
      await page.selectOption('#filter-kind', 'date')
      await page.fill('#filter-value', day)
      await page.click('#add-filter button[type=submit]')
    }
    await byDay('2020-01-01')
    await page.locator('#no-sessions').waitFor()
    await byDay(new Date().toISOString().slice(0, 10))
    await page.locator('#page-info', { hasText: 'of 51 sessions' }).waitFor()
    await page.goto(`${base}/app#/p/${t.project.id}/sessions?errors=1&recording=1`)
  })

  it('session page: the timeline shows payloads as text, and the replay plays and follows clicks', async () => {
    await page.click('#sessions .session-link')
    await page.waitForSelector('#timeline li.event')
    const timeline = (await page.textContent('#timeline')) ?? ''
    assert.ok(timeline.includes('Checkout failed <img src=x onerror='), 'the error message is shown literally')
    assert.ok(timeline.includes(PAYLOAD_SVG), 'the report is shown literally')
    assert.equal(await page.locator('#timeline img, #timeline svg, #timeline script').count(), 0, 'no payload became markup')
    await page.click('#timeline li[data-type=HTTP_ERROR] .expand')
    assert.match(await page.textContent('#timeline li[data-type=HTTP_ERROR] .details') ?? '', /"password":"\*\*\*"/)
    assert.match(await page.textContent('#session-facts') ?? '', /utm_source=<svg onload=/)
    await page.click('#session-facts details.raw summary')
    assert.ok((await page.textContent('#user-agent'))?.includes(PAYLOAD_IMG), 'the raw User-Agent on demand, as text')
    assert.ok((await page.textContent('#session-title'))?.length, 'a title that says what happened')
    assert.equal(await page.locator('#session-title img, #session-sub img, #session-facts img, #session-facts svg').count(), 0)

    const frame = page.frameLocator('#player iframe')
    await frame.locator('#title').waitFor({ state: 'attached' })
    assert.equal(await page.getAttribute('#player iframe', 'sandbox'), 'allow-same-origin', 'the replay iframe may not run scripts')
    await screenshot(page, '06-session')
    // Clicking the error moves the player there: the replayed page shows the heading as it was then.
    assert.equal(await frame.locator('#live-dom img').count(), 1, 'the recorded DOM holds the hostile img')
    await frame.locator('#js-link').click({ force: true }).catch(() => undefined)
    await page.click('#timeline li[data-type=ERROR] .caption')
    await eventually(async () => ((await frame.locator('#title').textContent()) === 'Broken heading' ? true : null), 'the replay at the error')
    assert.equal(await page.getAttribute('#timeline li[data-type=ERROR]', 'aria-current'), 'true')
    await page.click('#timeline li[data-type=NAVIGATION] .caption')
    await eventually(async () => ((await frame.locator('#title').textContent()) === 'Visible heading' ? true : null), 'the replay at the start')
    // Playing moves the timeline's marker along.
    await page.click('#timeline li[data-type=NAVIGATION] .caption')
    await page.click('.rr-controller__btns button')
    await eventually(async () => ((await page.getAttribute('#timeline li[data-type=ERROR]', 'aria-current')) === 'true' ? true : null),
      'the timeline following the player')
    await screenshot(page, '07-session-replay')
  })

  it('issues: the list groups the visit\'s errors, the issue page shows them as text, and resolving works', async () => {
    await page.goto(`${base}/app#/p/${t.project.id}/issues`)
    await page.waitForSelector('#issues')
    const titles = await page.locator('#issues .issue-title').allTextContents()
    assert.ok(titles.some((x) => x.includes('Checkout failed <img src=x onerror=')), `the error's issue, shown literally: ${titles.join(' | ')}`)
    assert.equal(await page.locator('#issues img, #issues svg, #issues script').count(), 0, 'no payload became markup')
    await screenshot(page, '08-issues')
    await page.locator('#issues .issue-title', { hasText: 'Checkout failed' }).click()
    await page.waitForSelector('#issue-facts')
    assert.match(await page.textContent('#issue-title') ?? '', /Checkout failed <img src=x onerror=/)
    assert.equal(await page.locator('#issue-histogram .bar').count(), 30)
    assert.equal(await page.locator('#issue-sessions .replay-link').count(), 1, 'the visit that hit it, with its replay')
    await screenshot(page, '09-issue')
    await page.click('#issue-resolve')
    await page.locator('#issue-facts', { hasText: 'resolved' }).waitFor()
    await page.click('#issue-reopen')
    await page.locator('#issue-facts', { hasText: 'open' }).waitFor()
    await page.click('#issue-all-visits')
    await page.locator('#page-info', { hasText: '1–1 of 1 sessions' }).waitFor()
    // The session's timeline links each error to its issue.
    await page.click('#sessions .session-link')
    await page.click('#timeline li[data-type=ERROR] .issue-link')
    await page.waitForSelector('#issue-facts')
    assert.match(await page.textContent('#issue-title') ?? '', /Checkout failed/)
  })

  it('privacy: Settings chooses IP storage and masked fields and erases a user; a visit is deleted from its page', async () => {
    const visit = async (key: string, extra: Record<string, unknown> = {}) =>
      json<{ sessionId: string }>(await t.ingest(batch(key, [{ type: 'CLICK', message: 'privacy' }], extra))).sessionId
    const carol = await visit('privacy-carol-visit', { user: { id: 'carol' } })
    const single = await visit('privacy-single-visit')
    await page.goto(`${base}/app#/p/${t.project.id}/settings`)
    await page.selectOption('#set-ip-storage', 'truncated')
    await page.fill('#set-mask-fields', 'iban, phone')
    await page.click('#settings button[type=submit]')
    await page.locator('#settings-message.ok').waitFor()
    const saved = await getProject(t.app.db, t.project.id)
    assert.deepEqual([saved.ipStorage, saved.maskFields], ['truncated', ['iban', 'phone']])
    await page.selectOption('#erase-kind', 'userId')
    await page.fill('#erase-value', 'carol')
    await page.click('#erase button[type=submit]')
    await page.locator('#erase-message.ok', { hasText: 'Erased 1 visits.' }).waitFor()
    assert.ok(dialogs.some((d) => d.startsWith('confirm: Erase every visit of user id "carol"?')), 'erasing asks first')
    // (The API key was rotated above: the store answers for the API.)
    assert.equal(await findSession(t.app.db, t.project.id, carol, 0), undefined)
    await screenshot(page, '10-settings-privacy')
    await page.goto(`${base}/app#/p/${t.project.id}/s/${single}`)
    await page.click('#delete-visit')
    await page.waitForSelector('#sessions')
    assert.ok(dialogs.some((d) => d.startsWith(`confirm: Delete the visit ${single}?`)))
    assert.equal(await findSession(t.app.db, t.project.id, single, 0), undefined)
  })

  it('nothing from the visitor ran: no payload, no dialog, no page error', async () => {
    assert.equal(await page.evaluate('window.__pwned'), undefined)
    const frames = page.frames()
    for (const f of frames) assert.equal(await f.evaluate('window.__pwned').catch(() => undefined), undefined)
    assert.deepEqual(dialogs.filter((d) => !d.startsWith('confirm')), [])
    assert.deepEqual(pageErrors, [])
  })
})
