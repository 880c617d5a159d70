/**
 * The pages the recorder benchmark visits, served from an origin other than the service's (as a customer's site
 * is): a typical article, a heavy app that mutates all the time, and a form. `sdk` is the snippet (or nothing).
 */
import type { Page } from 'playwright-core'

export type PageName = 'article' | 'heavy' | 'form'

const shell = (title: string, body: string, sdk: string, script = '') => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1rem} td{padding:1px 4px;border-bottom:1px solid #eee;font-size:11px}
.row{display:flex;gap:8px;font-size:11px}</style></head><body>${body}${sdk}<script>${script}</script></body></html>`

/** About 1,550 elements of prose, links, a list and a table: a news or docs page. */
function article(sdk: string): string {
  const nav = `<nav><ul>${Array.from({ length: 40 }, (_, i) => `<li><a href="#s${i}">Section ${i}</a></li>`).join('')}</ul></nav>`
  const paras = Array.from({ length: 150 }, (_, i) => `${i % 10 === 0 ? `<h2 id="s${i / 10}">Part ${i / 10}</h2>` : ''}<p>Paragraph ${i} with
<a href="#p${i}">a link</a>, <em>some emphasis</em> and <strong>strong words</strong> about sessions, replays and the errors people hit.</p>`).join('')
  const list = `<ul>${Array.from({ length: 120 }, (_, i) => `<li><span>Item ${i}</span></li>`).join('')}</ul>`
  const table = `<table>${Array.from({ length: 50 }, (_, r) => `<tr>${Array.from({ length: 6 }, (_, c) => `<td>${r}.${c}</td>`).join('')}</tr>`).join('')}</table>`
  // A typical page's own script: a table of contents, link handlers, a reading-progress bar and a few late widgets.
  const script = `
  const toc = document.createElement('ol')
  for (const h of document.querySelectorAll('h2')) { const li = document.createElement('li'); li.textContent = h.textContent; toc.appendChild(li) }
  document.querySelector('header').appendChild(toc)
  for (const a of document.querySelectorAll('a')) a.addEventListener('click', () => { a.dataset.clicked = '1' })
  const bar = document.createElement('div'); bar.style.cssText = 'position:fixed;top:0;left:0;height:3px;background:#36c'; document.body.appendChild(bar)
  addEventListener('scroll', () => { bar.style.width = (100 * scrollY / (document.body.scrollHeight - innerHeight)) + '%' })
  for (const at of [500, 1500, 2500]) setTimeout(() => { const p = document.createElement('p'); p.textContent = 'Related story ' + at; document.querySelector('footer').appendChild(p) }, at)`
  return shell('Article', `<header><h1>A typical article</h1></header>${nav}<article>${paras}${list}${table}</article><footer>© bench</footer>`, sdk, script)
}

/**
 * About 19,200 elements (a 1,000 × 18 table), 200 cell updates every 50 ms, and three re-renders of a 5,000-row list
 * (at 3, 6 and 9 s). `window.__drift` is the update loop's worst lateness: what the page itself suffers; each update
 * also writes `tick-<n>` (`window.__ticks`), which the stored replay must hold; `window.__inputDelays` are the delays
 * between a click on the Act button and its handler.
 */
function heavy(sdk: string): string {
  const rows = Array.from({ length: 1000 }, (_, r) => `<tr>${Array.from({ length: 18 }, (_, c) => `<td>${(r * 18 + c) % 997}</td>`).join('')}</tr>`).join('')
  const script = `
  window.__drift = 0
  window.__ticks = 0
  window.__inputDelays = []
  const cells = document.querySelectorAll('#grid td')
  const tick = document.getElementById('tick')
  document.getElementById('act').addEventListener('click', (e) => { window.__inputDelays.push(performance.now() - e.timeStamp) })
  let last = performance.now()
  setInterval(() => {
    const now = performance.now()
    window.__drift = Math.max(window.__drift, now - last - 50)
    last = now
    for (let i = 0; i < 200; i++) cells[(Math.random() * cells.length) | 0].textContent = String((Math.random() * 1000) | 0)
    tick.textContent = 'tick-' + (++window.__ticks)
  }, 50)
  const list = document.getElementById('list')
  const render = (n) => {
    const frag = document.createDocumentFragment()
    for (let i = 0; i < 5000; i++) {
      const row = document.createElement('div')
      row.className = 'row'
      row.innerHTML = '<span>Row ' + i + '</span><span>' + n + '</span>'
      frag.appendChild(row)
    }
    list.replaceChildren(frag)
  }
  for (const at of [3000, 6000, 9000]) setTimeout(() => render(at), at)`
  return shell('Heavy app', `<h1>Dashboard</h1><p><span id="tick">tick-0</span> <button id="act" type="button">Act</button></p><table id="grid"><tbody>${rows}</tbody></table><div id="list"></div>`, sdk, script)
}

/** A checkout form with a live "ship to" preview that echoes the typed address. */
function form(sdk: string): string {
  const body = `<h1>Checkout</h1><form id="checkout">
<label>Name <input id="name" name="name"></label><label>Email <input id="email" type="email" name="email"></label>
<label>Password <input id="password" type="password" name="password"></label><label>Card <input id="card" name="cardnumber" autocomplete="cc-number"></label>
<label>Address <textarea id="address" name="address"></textarea></label><p>Ship to: <span id="preview"></span></p>
<button type="button" id="pay">Pay</button></form>`
  const script = `document.getElementById('address').addEventListener('input', (e) => { document.getElementById('preview').textContent = e.target.value })`
  return shell('Checkout', body, sdk, script)
}

export const PAGES: Record<PageName, (sdk: string) => string> = { article, heavy, form }

/**
 * Without the SDK; rrweb alone, with the recorder's options and events thrown away (what rrweb itself costs, the
 * floor under the recorder's figures; measured on this checkout only); the SDK without the recorder and, further,
 * without rage and dead clicks and Core Web Vitals (`no-signals`: what those cost is the difference; this checkout
 * only); the SDK with the recorder; and with `record: 'onError'`, holding the recording of a visit without an error
 * (this checkout only).
 */
export type Variant = 'none' | 'rrweb' | 'no-signals' | 'no-recorder' | 'recorder' | 'on-error'
export const VARIANTS: readonly Variant[] = ['none', 'rrweb', 'no-signals', 'no-recorder', 'recorder', 'on-error']
/** The variants measured on this checkout only: the tree compared with has no such thing. */
export const BRANCH_ONLY: ReadonlySet<Variant> = new Set(['rrweb', 'no-signals', 'on-error'])
/** The init options that turn rage and dead clicks and Core Web Vitals off. */
const NO_SIGNALS = { rageClicks: false, deadClicks: false, vitals: false }
/** Where the page loads rrweb alone from (its own origin: the bench site serves it). */
export const RRWEB_ALONE_PATH = '/rrweb-alone.js'

/** The SDK snippet of a variant, loading from the service at `endpoint`, with further init options. */
export function snippet(variant: Variant, endpoint: string, ingestKey: string, options: Record<string, unknown> = {}): string {
  if (variant === 'none') return ''
  if (variant === 'rrweb') return `<script src="${RRWEB_ALONE_PATH}"></script>`
  const record = variant === 'recorder' ? true : variant === 'on-error' ? 'onError' : false
  const signals = variant === 'no-signals' ? NO_SIGNALS : {}
  return `<script src="${endpoint}/sdk.js"></script><script>Sessionwatch.init(${JSON.stringify({ ingestKey, endpoint, record, ...signals, ...options })})</script>`
}

/** Clicks on the heavy page's Act button while it runs, spread over the visit: the page notes each click's delay to its handler. */
const CLICKS = 6

/**
 * What a visitor does on each page, clicks included, so that the rage- and dead-click detectors run: the article's
 * reader follows a few section links (one twice) and triple-clicks a heading to select it; the heavy page's user
 * clicks Act through the visit, then four times at once (a rage click); the form's user fills it and clicks Pay,
 * which does nothing (a dead click), then three times at once.
 */
export async function act(tab: Page, page: PageName, heavySeconds: number): Promise<void> {
  if (page === 'heavy') {
    for (let i = 0; i < CLICKS; i++) {
      await tab.waitForTimeout((heavySeconds * 1000) / CLICKS)
      await tab.click('#act', { timeout: 5000 }).catch(() => undefined)
    }
    await tab.click('#act', { clickCount: 4, timeout: 5000 }).catch(() => undefined)
  } else if (page === 'form') {
    await tab.waitForTimeout(1000)
    await tab.fill('#name', 'Ann Example')
    for (const [field, text] of [['#email', 'ann@example.com'], ['#password', 'hunter2-secret'], ['#card', '4111 1111 1111 1111'],
      ['#address', '1 Main Street, Springfield']] as const) await tab.locator(field).pressSequentially(text, { delay: 20 })
    await tab.click('#pay')
    await tab.waitForTimeout(1000)
    await tab.click('#pay', { clickCount: 3 })
    await tab.waitForTimeout(2000)
  } else {
    await tab.waitForTimeout(1500)
    for (const section of [2, 5, 5]) await tab.click(`nav a[href="#s${section}"]`)
    await tab.click('h1', { clickCount: 3 })
    await tab.mouse.wheel(0, 4000)
    await tab.waitForTimeout(2500)
  }
}
