/**
 * Issue 13 end to end: a customer identified by the page, with tags, a report and an error, is found through the
 * API's search, then erased by user id with the CLI and gone from the list, the detail and the counters.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { json, type TestApp } from '../../helpers/app.ts'
import { closeBrowserTest, eventually, openServedPage, startBrowserTest } from '../../helpers/browser.ts'
import { cli } from '../../helpers/cli.ts'

interface List { total: number; sessions: { id: string; user: { id: string } | null; tags: Record<string, string> | null; release: string | null }[] }
interface Issues { total: number; issues: { id: string; type: string; events: number; sessions: number }[] }

const shopPage = (ingestKey: string, script: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Checkout</title></head><body>
<button id="pay" type="button">Pay</button>
<script src="/sdk.js"></script>
<script>
  Sessionwatch.init({ ingestKey: ${JSON.stringify(ingestKey)}, record: false, flushIntervalMs: 200, release: 'shop@2.4.1', environment: 'production' })
  ${script}
</script>
</body></html>`

describe('find a customer\'s visit, then erase it (Chromium, SDK → API → CLI)', () => {
  let t: TestApp
  let browser: Browser
  let base: string
  before(async () => { ({ t, base, browser } = await startBrowserTest()) })
  after(() => closeBrowserTest({ t, browser }))

  it('an identified visitor with tags, a report and an error is found by user=, q=, url=, type= and errors=, and erased by user id', async () => {
    // Alice, on the checkout page: identified, tagged, reports a problem and hits an error.
    const alice = await openServedPage(browser, base, '/checkout/payment', shopPage(t.project.ingestKey, `
      Sessionwatch.identify('alice@example.com', { plan: 'pro' })
      Sessionwatch.setTags({ team: 'checkout' })
      Sessionwatch.report('The pay button does nothing')
      Sessionwatch.captureError(new TypeError('Payment widget crashed'))`))
    // Bob, anonymous, on another page, without trouble.
    const bob = await openServedPage(browser, base, '/catalog', shopPage(t.project.ingestKey, 'document.getElementById("pay").click()'))
    const found = (query: string) => eventually(async () => {
      const body = json<List>(await t.get(`/api/v1/sessions?${query}`))
      return body.total > 0 ? body : null
    }, query)

    const byUser = await found('user=alice%40example.com')
    const visit = byUser.sessions[0]
    assert.equal(byUser.total, 1)
    assert.deepEqual(visit && [visit.user?.id, visit.tags, visit.release], ['alice@example.com', { team: 'checkout' }, 'shop@2.4.1'])
    await eventually(async () => (json<List>(await t.get('/api/v1/sessions?errors=true')).total > 0 ? true : null), 'the error arrived')
    // Bob's click ("button#pay Pay") is stored too before the searches, so each must tell the two visits apart.
    await eventually(async () => (json<List>(await t.get('/api/v1/sessions?type=CLICK')).total > 0 ? true : null), 'Bob\'s click')
    assert.equal(json<List>(await t.get('/api/v1/sessions?q=pay%20button')).total, 2, 'both visits hold "pay" and "button"')
    for (const query of ['q=%22button%20does%20nothing%22', 'q=%22Payment%20widget%22', 'url=checkout%2Fpay', 'type=USER_REPORT', 'errors=true', 'tag.team=checkout']) {
      const body = json<List>(await t.get(`/api/v1/sessions?${query}`))
      assert.deepEqual([body.total, body.sessions.map((s) => s.id)], [1, [visit?.id]], query)
    }
    const issue = json<Issues>(await t.get('/api/v1/issues')).issues.find((i) => i.type === 'ERROR')
    assert.deepEqual(issue && [issue.events, issue.sessions], [1, 1], 'the error is counted in its issue')
    assert.deepEqual([alice.pageErrors, bob.pageErrors], [[], []])
    await alice.page.close()
    await bob.page.close()

    // Erased by user id through the CLI, on the database the service runs on.
    const erased = await cli(['erase', '--project', t.project.id, '--user', 'alice@example.com', '--json'], { DATABASE_URL: t.databaseUrl })
    assert.equal(erased.code, 0, erased.stderr)
    assert.equal((JSON.parse(erased.stdout) as { erased: number }).erased, 1)
    const again = await cli(['erase', '--project', t.project.id, '--user', 'alice@example.com', '--json'], { DATABASE_URL: t.databaseUrl })
    assert.equal((JSON.parse(again.stdout) as { erased: number }).erased, 0, 'erasing again finds nothing')

    assert.equal((await t.get(`/api/v1/sessions/${visit?.id ?? ''}`)).statusCode, 404, 'getSession answers 404')
    for (const query of ['user=alice%40example.com', 'q=%22button%20does%20nothing%22', 'url=checkout', 'type=USER_REPORT', 'errors=true', 'tag.team=checkout']) {
      assert.equal(json<List>(await t.get(`/api/v1/sessions?${query}`)).total, 0, `${query} finds nothing`)
    }
    const list = json<List>(await t.get('/api/v1/sessions'))
    assert.deepEqual([list.total, list.sessions.map((s) => s.user)], [1, [null]], 'only Bob\'s visit is left')
    const gone = json<Issues>(await t.get('/api/v1/issues')).issues.find((i) => i.id === issue?.id)
    assert.deepEqual(gone ? [gone.events, gone.sessions] : [0, 0], [0, 0], 'the issue no longer counts the erased visit')
  })
})
