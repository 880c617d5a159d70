/**
 * Issue grouping, source maps and alerts end to end, in Chromium: a real esbuild-minified bundle on
 * another origin throws the same bug in two visits (different order numbers) and another bug once; the
 * map is uploaded after the errors arrived; the API then shows two issues with the right counts and
 * stacks pointing at the original file, line and function, and a loopback webhook gets one "new issue"
 * delivery per issue.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { build } from 'esbuild'
import type { Browser, Page } from 'playwright-core'
import { addWebhook } from '../../../src/alerts/service.ts'
import { settledDeliveries, startReceiver } from '../../helpers/alerts.ts'
import { json, type TestApp } from '../../helpers/app.ts'
import { closeBrowserTest, screenshot, servePage, signIn, startBrowserTest } from '../../helpers/browser.ts'
import { eventually } from '../../helpers/wait.ts'

const CDN = 'https://cdn.shop.test/static'
const PASSWORD = 'correct horse battery staple'
/** The shop's source as its developers wrote it: the original the map leads back to. */
const CART_SOURCE = `export function checkout(order) {
  if (order.items.length === 0) {
    throw new TypeError('Order ' + order.id + ' has no items')
  }
  return order.items.length
}

export function renderTotal(cart) {
  return cart.total.toFixed(2)
}
`
const MAIN_SOURCE = `import { checkout, renderTotal } from './cart.js'
window.shop = {
  buy(id) { setTimeout(() => checkout({ id, items: [] }), 0) },
  total() { setTimeout(() => renderTotal({}), 0) },
}
`

interface Frame { function: string | null; file: string | null; line: number | null; column: number | null; mapped: boolean }
interface IssueList { total: number; issues: { id: string; title: string; events: number; sessions: number }[] }

describe('issues from a minified bundle, mapped after the fact, in Chromium', () => {
  let t: TestApp
  let base: string
  let browser: Browser
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let bundle = { name: '', code: '', map: '' }

  before(async () => {
    receiver = await startReceiver([200])
    ;({ t, base, browser } = await startBrowserTest({ WEBHOOK_ALLOW_PRIVATE: 'true', ADMIN_PASSWORD: PASSWORD }, { webhooks: { pollMs: 50 } }))
    await addWebhook(t.app.db, t.project.id, receiver.url, { allowPrivate: true })
    const out = await build({
      stdin: { contents: MAIN_SOURCE, resolveDir: '/shop/src', sourcefile: 'main.js' },
      plugins: [{
        name: 'cart', setup(b) {
          b.onResolve({ filter: /cart\.js$/ }, () => ({ path: '/shop/src/cart.js', namespace: 'shop' }))
          b.onLoad({ filter: /.*/, namespace: 'shop' }, () => ({ contents: CART_SOURCE, loader: 'js' }))
        },
      }],
      bundle: true, minify: true, format: 'iife', sourcemap: 'external', sourcesContent: true, write: false,
      outdir: '/shop/dist', entryNames: 'app-[hash]',
    })
    const js = out.outputFiles.find((f) => f.path.endsWith('.js'))
    const map = out.outputFiles.find((f) => f.path.endsWith('.js.map'))
    assert.ok(js && map)
    bundle = { name: js.path.split('/').pop() ?? '', code: js.text, map: map.text }
    assert.ok(!bundle.code.includes('checkout'), 'the bundle is minified')
  })
  after(async () => {
    await closeBrowserTest({ t, browser })
    await receiver.close()
  })

  /** One visit to the shop: the page on the service's origin, the bundle from the CDN origin with CORS, as shops do. */
  async function visit(actions: (page: Page) => Promise<void>): Promise<void> {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.route(`${CDN}/${bundle.name}`, (route) => route.fulfill({
      status: 200, contentType: 'text/javascript', headers: { 'access-control-allow-origin': '*' }, body: bundle.code,
    }))
    await servePage(page, base, '/shop', `<!doctype html><html><body><h1>Shop</h1>
<script src="/sdk.js"></script>
<script>Sessionwatch.init({ ingestKey: ${JSON.stringify(t.project.ingestKey)}, flushIntervalMs: 200, record: false })</script>
<script src="${CDN}/${bundle.name}" crossorigin="anonymous"></script>
</body></html>`)
    await page.goto(`${base}/shop`)
    await page.waitForFunction('window.shop !== undefined && Sessionwatch.stats() !== null')
    await actions(page)
    await page.waitForFunction('Sessionwatch.stats().queued === 0 && Sessionwatch.stats().sent >= 2')
    await context.close()
  }

  it('groups the same bug across visits and a different bug apart, before any map exists', async () => {
    await visit(async (page) => { await page.evaluate('shop.buy(1234)') })
    await visit(async (page) => {
      await page.evaluate('shop.buy(77)')
      await page.waitForFunction('Sessionwatch.stats().sent >= 2')
      await page.evaluate('shop.total()')
      await page.waitForFunction('Sessionwatch.stats().sent >= 3')
    })
    const list = await eventually(async () => {
      const body = json<IssueList>(await t.get('/api/v1/issues'))
      return body.issues.reduce((n, i) => n + i.events, 0) >= 3 ? body : null
    }, 'three errors grouped')
    assert.equal(list.total, 2)
    const order = list.issues.find((i) => i.title.includes('Order'))
    const total = list.issues.find((i) => !i.title.includes('Order'))
    assert.ok(order && total, list.issues.map((i) => i.title).join(' | '))
    assert.equal(order.title, 'TypeError: Order <int> has no items')
    assert.deepEqual([order.events, order.sessions], [2, 2])
    assert.deepEqual([total.events, total.sessions], [1, 1])
  })

  it('a map uploaded afterwards makes the stored stacks readable: original file, line and function', async () => {
    const before = json<IssueList>(await t.get('/api/v1/issues'))
    const order = before.issues.find((i) => i.title.includes('Order'))
    assert.ok(order)
    const unmapped = json<{ latestEvent: { event: { frames: Frame[] } } }>(await t.get(`/api/v1/issues/${order.id}`))
    assert.equal(unmapped.latestEvent.event.frames[0]?.mapped, false)

    const upload = await t.app.inject({
      method: 'POST', url: `/upload/v1/sourcemaps?url=${encodeURIComponent(`${CDN}/${bundle.name}`)}`,
      headers: { authorization: `Bearer ${t.project.uploadKey}`, 'content-type': 'application/json' }, payload: bundle.map,
    })
    assert.equal(upload.statusCode, 201, upload.body)

    const detail = json<{ latestEvent: { event: { stack: string; frames: Frame[] } } }>(await t.get(`/api/v1/issues/${order.id}`))
    const top = detail.latestEvent.event.frames[0]
    assert.ok(top)
    assert.equal(top.mapped, true)
    assert.match(top.file ?? '', /cart\.js$/)
    assert.equal(top.line, 3, 'the throw in checkout')
    assert.equal(top.function, 'checkout')
    assert.match(detail.latestEvent.event.stack, new RegExp(bundle.name.replace('.', '\\.')), 'the raw minified stack is kept')
    const after = json<IssueList>(await t.get('/api/v1/issues'))
    assert.equal(after.total, 2, 'the upload regroups nothing')
    const other = after.issues.find((i) => i.id !== order.id)
    assert.ok(other)
    const render = json<{ latestEvent: { event: { frames: Frame[] } } }>(await t.get(`/api/v1/issues/${other.id}`)).latestEvent.event.frames[0]
    assert.deepEqual([render?.function, render?.line], ['renderTotal', 9])
  })

  it('after the upload the same bug, now grouped through the map, still joins its issue', async () => {
    await visit(async (page) => { await page.evaluate('shop.buy(5)') })
    const list = await eventually(async () => {
      const body = json<IssueList>(await t.get('/api/v1/issues'))
      return body.issues.reduce((n, i) => n + i.events, 0) >= 4 ? body : null
    }, 'the fourth error grouped')
    assert.equal(list.total, 2, list.issues.map((i) => i.title).join(' | '))
    const order = list.issues.find((i) => i.title.includes('Order'))
    assert.deepEqual([order?.events, order?.sessions], [3, 3])
  })

  it('the dashboard\'s issue page shows the mapped stack with its source', async () => {
    const list = json<IssueList>(await t.get('/api/v1/issues'))
    const order = list.issues.find((i) => i.title.includes('Order'))
    assert.ok(order)
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    await signIn(page, base, PASSWORD)
    await page.goto(`${base}/app#/p/${t.project.id}/issues/${order.id}`)
    await page.waitForSelector('#issue-stack .frame.mapped')
    assert.match(await page.textContent('#issue-stack .frame.mapped .frame-head') ?? '', /checkout .*cart\.js:3:\d+/)
    assert.match(await page.textContent('#issue-stack .frame.mapped .line.current') ?? '', /has no items/)
    await screenshot(page, '10-issue-mapped-stack')
    await context.close()
  })

  it('the webhook got exactly one "new issue" delivery per issue', async () => {
    // One delivery queued per issue, each sent once: the receiver has had all there will be.
    const deliveries = await settledDeliveries(t.app.db, t.project.id, 'the deliveries sent')
    assert.deepEqual(deliveries.map((d) => [d.status, d.attempts]), [['delivered', 1], ['delivered', 1]])
    assert.equal(receiver.received.length, 2)
    const kinds = receiver.received.map((r) => (JSON.parse(r.body) as { kind: string; issue: { title: string } }))
    assert.deepEqual(kinds.map((k) => k.kind), ['new', 'new'])
    assert.equal(new Set(kinds.map((k) => k.issue.title)).size, 2)
  })
})
